# The README's two commands: `make demo` and `make test`. Each sets itself up on a fresh machine.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test test-engine lint typecheck sysdeps venv

$(STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[dev]'
	touch $(STAMP)

venv: $(STAMP)

# System packages the tests need beyond the PostgreSQL and Redis this machine runs.
sysdeps:
	@bash scripts/sysdeps.sh

demo: $(STAMP)
	$(BIN)/python manage.py demo

test: $(STAMP) sysdeps
	$(BIN)/mypy --strict engine
	$(BIN)/python -m pytest

test-engine: $(STAMP)
	$(BIN)/python -m pytest tests/engine -m 'not slow'

lint: $(STAMP)
	$(BIN)/ruff check .

typecheck: $(STAMP)
	$(BIN)/mypy --strict engine
