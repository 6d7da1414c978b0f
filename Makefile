# The README's two commands: `make demo` and `make test`. Each sets itself up on a fresh machine.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# The test suite needs PostgreSQL and Redis (never SQLite); point it elsewhere with DATABASE_URL=... make test.
DATABASE_URL ?= postgres://postgres@127.0.0.1:5432/ludus
TEST_BROKER_URL ?= redis://127.0.0.1:6379/5

.PHONY: demo test test-engine test-e2e lint typecheck sysdeps venv

$(STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[dev]'
	touch $(STAMP)

venv: $(STAMP)

# System packages the tests need beyond the PostgreSQL and Redis this machine runs.
sysdeps:
	@bash scripts/sysdeps.sh

# SQLite under var/ and the embedded runner unless DATABASE_URL / CELERY_BROKER_URL are set in the environment.
demo: $(STAMP)
	DEBUG=$${DEBUG:-1} $(BIN)/python manage.py demo

test: $(STAMP) sysdeps
	$(BIN)/mypy --strict engine
	DEBUG=1 DATABASE_URL=$(DATABASE_URL) CELERY_BROKER_URL=$(TEST_BROKER_URL) $(BIN)/python -m pytest

test-engine: $(STAMP)
	$(BIN)/python -m pytest tests/engine -m 'not slow'

# The browser tests alone (Playwright on /usr/bin/chromium); screenshots land in artifacts/screenshots/.
test-e2e: $(STAMP) sysdeps
	DEBUG=1 DATABASE_URL=$(DATABASE_URL) $(BIN)/python -m pytest tests/e2e -m e2e

lint: $(STAMP)
	$(BIN)/ruff check .

typecheck: $(STAMP)
	$(BIN)/mypy --strict engine
