"""The configuration, above every layer (docs/architecture.md#configuration): settings, root URLs, the ASGI and WSGI
entry points, the Celery app, and the wiring of the runners to the apps (config/apps.py).

Nothing below imports it; it imports what it wires. Kept empty: `celery -A config` finds config.celery itself.
"""
