# gunicorn's settings for the web server; gunicorn reads this file from its working directory (the repository's root,
# /app in the image), so the README's, the Dockerfile's, compose's and deploy/k8s/web.yaml's commands all use it.
import os

from config.proxies import trusted_proxies

# Each web process pools its PostgreSQL connections: at most this many (docs/operations.md#database-connections).
# Only the web: a Celery worker's processes each hold one connection of their own anyway.
os.environ.setdefault("LUDUS_DB_POOL_SIZE", "8")

# Only these peers' X-Forwarded-* headers are believed (uvicorn's proxy-headers rewrite, under the uvicorn worker):
# gunicorn's own default trusts 127.0.0.1, so any client on the host could name its own address.
forwarded_allow_ips = ",".join(trusted_proxies())
