"""The sandbox: uploaded bots as processes under bubblewrap, one module a concern.

Process code only, no Django, Celery or database (an import-linter contract in pyproject.toml): what it would read
from the settings comes in through SandboxConfig (workers/sandbox_settings.py builds it). See
docs/architecture.md#bots-the-wire-protocol-and-the-sandbox.
"""
