# The README's commands: `make demo` (then manage.py in any shell), `make test` and `make check`. Each sets itself
# up on a fresh machine.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
LOCAL_ENV := var/local.env
PORT ?= 8000
# The test suite needs PostgreSQL and Redis (never SQLite); point it elsewhere with DATABASE_URL=... make test.
DATABASE_URL ?= postgres://postgres@127.0.0.1:5432/ludus
TEST_BROKER_URL ?= redis://127.0.0.1:6379/5
# Test processes (pytest-xdist): each has its own test database and Celery queues, and runs whole test files, in the
# order tests/conftest.py gives them (slow files first). Twice the cores: much of the suite waits
# (on sandboxed bots, browsers, Celery workers, live servers): one process a core used 16.5 min of CPU in 30 min on 2 cores.
TEST_WORKERS ?= $(shell echo $$(( $$(nproc) * 2 )))
# PYTHONDONTWRITEBYTECODE set (as on some machines) makes every process of a run compile its modules again, and
# pytest rewrite the asserts of every test module and plugin again, in each xdist worker: let them be cached.
TEST_ENV := DEBUG=1 DATABASE_URL=$(DATABASE_URL) CELERY_BROKER_URL=$(TEST_BROKER_URL) PYTHONDONTWRITEBYTECODE=
PYTEST := $(TEST_ENV) $(BIN)/python -m pytest -n $(TEST_WORKERS) --dist loadfile --no-loadscope-reorder
# The everyday loop: what needs no worker process, sandbox or browser, and no slow test.
# mypy's Django plugin loads the settings: the development ones, never this checkout's var/local.env.
MYPY := DEBUG=1 LUDUS_ENV_FILE= $(BIN)/mypy
QUICK := not slow and not integration and not sandbox and not e2e

.PHONY: demo local test check test-nightly test-engine test-e2e lint typecheck sysdeps venv

$(STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[dev]'
	touch $(STAMP)

venv: $(STAMP)

# Local settings for this checkout (DEBUG on, a generated SECRET_KEY), so `.venv/bin/python manage.py ...` runs in
# any shell without exports. Written once; the environment still wins, and DEBUG=0 in it ignores the file.
$(LOCAL_ENV):
	@mkdir -p $(@D)
	@umask 077 && printf 'DEBUG=1\nSECRET_KEY=%s\n' "$$($(PY) -c 'import secrets; print(secrets.token_urlsafe(50))')" > $@
	@echo "wrote $@: local settings for this checkout (DEBUG on, a generated SECRET_KEY)"

local: $(STAMP) $(LOCAL_ENV)

# System packages the tests need beyond the PostgreSQL and Redis this machine runs.
sysdeps:
	@bash scripts/sysdeps.sh

# SQLite under var/ and the embedded runner unless DATABASE_URL / CELERY_BROKER_URL are set in the environment.
demo: local
	$(BIN)/python manage.py demo --addrport 127.0.0.1:$(PORT)

# Everything, on every core (what .ci/run calls).
test: $(STAMP) sysdeps
	$(MYPY)
	$(BIN)/lint-imports --no-cache
	$(PYTEST)

# The everyday loop: lint, types, the engine tests and the unit tests (a third of the Hypothesis examples, every third
# step of the whole-game checks: tests/hypothesis_profiles.py).
check: $(STAMP) lint typecheck
	HYPOTHESIS_PROFILE=check $(PYTEST) -m '$(QUICK)'

# The deep Hypothesis profile: more examples, random ones, every step probed (tests/hypothesis_profiles.py).
test-nightly: $(STAMP) sysdeps
	HYPOTHESIS_PROFILE=nightly LUDUS_SCHEMATHESIS_SEED=random $(PYTEST)

test-engine: $(STAMP)
	$(BIN)/python -m pytest tests/engine -m 'not slow'

# The browser tests alone (Playwright on /usr/bin/chromium), writing screenshots to artifacts/screenshots/.
test-e2e: $(STAMP) sysdeps
	LUDUS_SCREENSHOTS=1 $(PYTEST) tests/e2e -m e2e

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/lint-imports --no-cache

typecheck: $(STAMP)
	$(MYPY)
