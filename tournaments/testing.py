"""A pytest plugin (`-p tournaments.testing` in pyproject) that runs before pytest-django reads the settings.

Tests are a development setting: DEBUG on gives SECRET_KEY its dev default, so `pytest tests/engine` works with no
environment at all. The database is not defaulted here: tests/conftest.py insists on PostgreSQL for service tests.
"""

import os

os.environ.setdefault("DEBUG", "1")
