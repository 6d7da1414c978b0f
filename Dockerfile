# One image for web, worker and beat; docker-compose.yml picks the command. Configured only by environment variables.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 DJANGO_SETTINGS_MODULE=config.settings
# bubblewrap sandboxes uploaded bots (LUDUS_SANDBOX=bwrap); the worker container needs user namespaces.
# python3-seccomp compiles the sandbox's seccomp filter (and brings /usr/bin/python3, the bots' interpreter);
# setpriv (util-linux, already in the base image) starts each seat as its own uid.
# nodejs, g++, rustc and default-jdk-headless build and run bots in the other languages (docs/bots.md, "Languages").
RUN apt-get update \
    && apt-get install -y --no-install-recommends bubblewrap python3-seccomp nodejs g++ rustc default-jdk-headless \
    && rm -rf /var/lib/apt/lists/*

WORKDIR /app
COPY pyproject.toml README.md ./
COPY engine ./engine
COPY tournaments ./tournaments
COPY replays ./replays
COPY workers ./workers
COPY ludus_client ./ludus_client
COPY manage.py gunicorn.conf.py ./
COPY docs/rules ./docs/rules
COPY scripts/worker-entrypoint.sh ./scripts/
RUN pip install --no-cache-dir . \
    && DEBUG=1 python manage.py collectstatic --noinput

RUN useradd --create-home --uid 10001 ludus && mkdir -p /app/var && chown ludus /app/var
USER ludus
EXPOSE 8000
# gunicorn reads /app/gunicorn.conf.py (its working directory): the proxies it trusts (LUDUS_TRUSTED_PROXIES).
CMD ["gunicorn", "config.asgi:application", "--worker-class", "uvicorn_worker.UvicornWorker", \
     "--bind", "0.0.0.0:8000", "--workers", "3"]
