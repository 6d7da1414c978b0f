"""A pytest plugin (`-p testenv` in pyproject) that runs before pytest-django reads the settings. A conftest.py,
even at the root, would load too late: pytest loads conftests in its `trylast` pytest_load_initial_conftests, after
pytest-django's has set Django up. The `pythonpath = ["tests"]` ini option puts this directory on sys.path before
`-p` plugins are imported, so it loads under `python -m pytest`, `pytest` and in every xdist worker alike.

Tests are a development setting: DEBUG on gives SECRET_KEY its dev default, so `pytest tests/engine` works with no
environment at all. A developer's var/local.env never leaks into a test (LUDUS_ENV_FILE empty). Under pytest-xdist
each worker process gets Celery queues of its own (LUDUS_QUEUE), beside a test database of its own (pytest-django
adds the worker's suffix), so workers that share one Redis database never take each other's tasks. The database is
not defaulted here: tests/conftest.py insists on PostgreSQL for service tests.
"""

import os

os.environ.setdefault("DEBUG", "1")
os.environ.setdefault("LUDUS_ENV_FILE", "")
if worker := os.environ.get("PYTEST_XDIST_WORKER"):  # set by xdist before this plugin loads
    os.environ["LUDUS_QUEUE"] = f"ludus-test-{worker}"
