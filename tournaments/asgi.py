"""ASGI entry point: `gunicorn tournaments.asgi -k uvicorn_worker.UvicornWorker`.

The pages and the API are sync Django views (each request runs in a thread of its own); the live feeds stream from
the event loop (replays/api/feeds.py), so the feeds that spectators keep open hold no worker.
"""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tournaments.settings")
application = get_asgi_application()
