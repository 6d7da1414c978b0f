"""Django settings. Every value comes from the environment (docs/architecture.md#configuration); see the README's
table."""

from __future__ import annotations

import os
import re
from datetime import timedelta
from pathlib import Path

import dj_database_url
from csp.constants import NONCE, NONE, SELF
from django.core.exceptions import ImproperlyConfigured
from kombu import Queue

from config.env import env_bool, env_choice, env_float, env_int, env_list, env_optional, env_str
from config.localenv import is_from_environment, load_local_env, local_env_path
from config.proxies import trusted_proxies

BASE_DIR = Path(__file__).resolve().parent.parent
load_local_env(BASE_DIR)  # var/local.env from `make local`, for variables the environment leaves unset

DEBUG = env_bool("DEBUG", False)
SECRET_KEY = env_optional("SECRET_KEY") or ("dev-only-insecure-secret-key-do-not-deploy" if DEBUG else "")
if not SECRET_KEY:  # production must set its own: no default
    raise ImproperlyConfigured("environment variable SECRET_KEY is required when DEBUG is off (for local use, "
                               "`make local` writes var/local.env with DEBUG=1 and a generated key)")
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]"])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])


def _database() -> dict[str, object]:
    default_sqlite = BASE_DIR / "var" / "ludus.sqlite3"
    url = env_str("DATABASE_URL", f"sqlite:///{default_sqlite}")
    try:
        config: dict[str, object] = dict(dj_database_url.parse(url, conn_max_age=env_int("DATABASE_CONN_MAX_AGE", 0)))
    except ValueError as exc:
        raise ImproperlyConfigured(f"environment variable DATABASE_URL is not a database URL: {exc}") from None
    if config["ENGINE"] == "django.db.backends.postgresql" and (pool := _pool()):
        # The pool keeps the connections, so Django's own persistence is off (it refuses both at once).
        config["CONN_MAX_AGE"] = 0
        config["CONN_HEALTH_CHECKS"] = True  # Django has the pool check each connection it hands out (one round trip)
        config["OPTIONS"] = {**dict(config.get("OPTIONS") or {}), "pool": pool}  # type: ignore[call-overload]
    if config["ENGINE"] == "django.db.backends.sqlite3":
        name = str(config["NAME"])
        if name != ":memory:":
            Path(name).parent.mkdir(parents=True, exist_ok=True)
        # Embedded runners write from several processes: WAL lets readers run beside the writer, IMMEDIATE
        # takes the write lock up front (no failing lock upgrades), and the timeout makes writers wait.
        config["OPTIONS"] = {
            "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
            "transaction_mode": "IMMEDIATE",
            "timeout": env_int("LUDUS_SQLITE_TIMEOUT", 60, minimum=1),
        }
    return config


def _pool() -> dict[str, object] | None:
    """psycopg's connection pool for this process, at most LUDUS_DB_POOL_SIZE connections (0: none, a connection per
    thread as Django opens them). The web server sets it (gunicorn.conf.py): under ASGI each request runs in a thread
    of its own, and connections kept per thread pile up (docs/operations.md#database-connections)."""
    size = env_int("LUDUS_DB_POOL_SIZE", 0, minimum=0)
    if not size:
        return None
    # A request waits this long for a free connection before it fails.
    return {"min_size": min(2, size), "max_size": size,
            "timeout": env_float("LUDUS_DB_POOL_TIMEOUT", 10.0, minimum=0.1)}


DATABASES = {"default": _database()}
# The cache holds the API's throttle counts and short-lived figures. Several web processes must share it, or each
# would count its own uploads: set CACHE_URL to a Redis database (not the broker's) wherever more than one runs.
CACHE_URL = env_optional("CACHE_URL")
if CACHE_URL and not CACHE_URL.startswith(("redis://", "rediss://", "unix://")):
    raise ImproperlyConfigured(f"environment variable CACHE_URL must be a Redis URL (redis://host:6379/1), "
                               f"got {CACHE_URL!r}")
# Keys are prefixed with the database's name: one deployment's web processes share their counts and slots, and two
# deployments (or two test databases) on one Redis database never count each other's.
CACHES = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": CACHE_URL,
                      "KEY_PREFIX": str(DATABASES["default"]["NAME"])}
          if CACHE_URL else {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",  # Swagger UI's assets, served locally (no CDN)
    "axes",  # login throttling: failed logins and lockouts, in the admin
    "csp",  # Content-Security-Policy; its checks catch settings of its older versions
    "tournaments",
    "replays",
    "config",  # wires the runners to the apps when Django starts (config/apps.py)
]

MIDDLEWARE = [
    "tournaments.health.HealthMiddleware",  # first: /healthz answers before the host check
    "tournaments.metrics.MetricsMiddleware",  # /metrics for Prometheus, whatever host it scrapes by
    "django.middleware.security.SecurityMiddleware",
    "csp.middleware.CSPMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",  # static files from gunicorn too
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "tournaments.health.UnavailableMiddleware",  # a service that does not answer (the replay store): a 503
    "axes.middleware.AxesMiddleware",  # last: turns a lockout into its 429 page
]
# django-axes checks every login (the pages', the admin's, the API's token login) before the password does.
AUTHENTICATION_BACKENDS = ["axes.backends.AxesStandaloneBackend", "django.contrib.auth.backends.ModelBackend"]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = Path(env_str("STATIC_ROOT", str(BASE_DIR / "var" / "static")))
# WhiteNoise serves collectstatic's files; with finders it also serves the apps' static/ folders without it.
WHITENOISE_USE_FINDERS = True
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "pages:home"
LOGOUT_REDIRECT_URL = "pages:home"

# Login throttling (django-axes): after LUDUS_LOGIN_FAILURES wrong passwords for one username from one address, that
# pair is locked out for LUDUS_LOGIN_COOLOFF_MINUTES (each further try restarts it); a success clears the count.
# Lockouts are logged (logger "axes") and listed in the admin (Axes: access attempts, access failures).
AXES_FAILURE_LIMIT = env_int("LUDUS_LOGIN_FAILURES", 5, minimum=1)
AXES_COOLOFF_TIME = timedelta(minutes=env_int("LUDUS_LOGIN_COOLOFF_MINUTES", 15, minimum=1))
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]  # one address cannot lock a user out everywhere
AXES_RESET_ON_SUCCESS = True
AXES_ENABLE_ACCESS_FAILURE_LOG = True
AXES_LOCKOUT_TEMPLATE = "registration/locked_out.html"
# The address is REMOTE_ADDR only: a client sets X-Forwarded-For to what it likes. Behind proxies listed in
# LUDUS_TRUSTED_PROXIES (empty: none), the web server (gunicorn.conf.py) sets REMOTE_ADDR from their header; the feed
# cap counts the same address (docs/operations.md#trusted-proxies).
LUDUS_TRUSTED_PROXIES = trusted_proxies()
AXES_IPWARE_META_PRECEDENCE_ORDER = ("REMOTE_ADDR",)
AXES_SENSITIVE_PARAMETERS: list[str] = []  # log who is locked out and from where (never a password): for operators
# Sign-up for authors on the pages (tournaments/pages/signup.py), throttled like the login; 0 turns it off.
LUDUS_SIGNUP = env_bool("LUDUS_SIGNUP", True)

if not DEBUG:
    SESSION_COOKIE_SECURE = env_bool("SESSION_COOKIE_SECURE", True)
    CSRF_COOKIE_SECURE = env_bool("CSRF_COOKIE_SECURE", True)
    # HSTS on HTTPS answers (a request is HTTPS when a trusted proxy says so: LUDUS_TRUSTED_PROXIES). Not preloaded:
    # joining the browsers' preload list is the operator's commitment for the whole domain (docs/operations.md).
    SECURE_HSTS_SECONDS = env_int("LUDUS_HSTS_SECONDS", 365 * 24 * 3600, minimum=0)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    # The TLS proxy redirects HTTP to HTTPS; redirecting here too loops forever behind a proxy not listed as trusted.
    SECURE_SSL_REDIRECT = env_bool("LUDUS_SSL_REDIRECT", False)
    SILENCED_SYSTEM_CHECKS = ["security.W021", *([] if SECURE_SSL_REDIRECT else ["security.W008"])]

# Content-Security-Policy (django-csp), in development as in production, so a page that breaks it breaks in tests:
# scripts only from this site (and the one inline script of a page, by its nonce), style attributes allowed (the
# bars' widths), nothing framed, no plugins (docs/operations.md#security-headers).
CONTENT_SECURITY_POLICY = {"DIRECTIVES": {
    "default-src": [SELF],
    "script-src": [SELF, NONCE],
    "style-src": [SELF, "'unsafe-inline'"],
    "img-src": [SELF, "data:"],
    "object-src": [NONE],
    "base-uri": [SELF],
    "form-action": [SELF],
    "frame-ancestors": [NONE],
}}

# Views that do not say otherwise need a login; the public ones (tournaments/api/) allow anonymous reads.
REST_FRAMEWORK = {
    "DEFAULT_SCHEMA_CLASS": "tournaments.api.schema.LudusAutoSchema",
    "DEFAULT_FILTER_BACKENDS": ["tournaments.api.common.StrictFilterBackend"],
    "DEFAULT_PAGINATION_CLASS": "tournaments.api.common.Pagination",
    "EXCEPTION_HANDLER": "tournaments.api.common.api_exception_handler",
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.TokenAuthentication",  # first, so an anonymous client gets 401 not 403
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_CONTENT_NEGOTIATION_CLASS": "tournaments.api.negotiation.QueryFormatIgnored",
    "DEFAULT_PARSER_CLASSES": ["tournaments.api.parsers.JSONBodyParser", "rest_framework.parsers.FormParser",
                               "rest_framework.parsers.MultiPartParser"],
    "DEFAULT_THROTTLE_RATES": {"uploads": None},  # set below, once LUDUS_UPLOAD_RATE is read
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Ludus API",
    "DESCRIPTION": "Tournaments and replays for board-game bots.",
    "VERSION": "0.1.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "COMPONENT_SPLIT_REQUEST": True,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "POSTPROCESSING_HOOKS": ["drf_spectacular.hooks.postprocess_schema_enums",
                             "tournaments.api.schema.no_nul_in_text_parameters"],
    "ENUM_NAME_OVERRIDES": {
        "BotVersionStatusEnum": "tournaments.models.BotVersion.Status",
        "MatchStatusEnum": "tournaments.models.Match.Status",
        "VersionTestStatusEnum": "tournaments.models.VersionTest.Status",
        # the `type` of each kind of line of the live feeds (tournaments/api/feedlines.py)
        **{f"{kind.title()}LineTypeEnum": [kind] for kind in ("match", "action", "restart", "end", "timeout",
                                                              "ladder", "result")},
    },
}

# --- Ludus: bots, matches, clocks -----------------------------------------------------------------------------------
LUDUS_SANDBOX = env_choice("LUDUS_SANDBOX", "bwrap", ("bwrap", "none"))
if LUDUS_SANDBOX == "none" and not DEBUG:
    raise ImproperlyConfigured("LUDUS_SANDBOX=none runs uploaded code unsandboxed; it is refused unless DEBUG=1")
# Uploaded bots need a control group per seat (memory, processes, CPU, freezing; docs/bots.md). A worker that cannot
# make them refuses uploaded bots, saying why and how to delegate, unless the operator opts out here.
LUDUS_SANDBOX_WITHOUT_CGROUPS = env_bool("LUDUS_SANDBOX_WITHOUT_CGROUPS", False)
# The interpreter inside the sandbox (any uid must be able to run it); unset: /usr/bin/python3, then the worker's.
LUDUS_SANDBOX_PYTHON = env_optional("LUDUS_SANDBOX_PYTHON")
# Warm seats (docs/bots.md, "Warm seats"): finished seats a worker process keeps, frozen, for their versions' next
# matches, and how long one may wait parked before it is stopped.
LUDUS_WARM_SEATS = env_int("LUDUS_WARM_SEATS", 0, minimum=0)
LUDUS_WARM_SEATS_IDLE_SECONDS = env_float("LUDUS_WARM_SEATS_IDLE_SECONDS", 300.0, minimum=0.0)
if LUDUS_WARM_SEATS_IDLE_SECONDS == 0:
    raise ImproperlyConfigured("environment variable LUDUS_WARM_SEATS_IDLE_SECONDS must be a number of seconds above "
                               f"0, got {os.environ['LUDUS_WARM_SEATS_IDLE_SECONDS'].strip()!r}")
# The site's address as people open it, for links printed outside a request (try_bot, replay show).
LUDUS_SITE_URL = env_str("LUDUS_SITE_URL", "http://127.0.0.1:8000").rstrip("/")
if not re.fullmatch(r"https?://[^/\s]+(/\S*)?", LUDUS_SITE_URL):
    raise ImproperlyConfigured(f"environment variable LUDUS_SITE_URL must be an http(s) URL such as "
                               f"https://ludus.example.org, got {LUDUS_SITE_URL!r}")
# `manage.py demo` writes its address as LUDUS_SITE_URL into the local settings file, unless the environment names one.
LUDUS_SITE_URL_FROM_ENVIRONMENT = is_from_environment("LUDUS_SITE_URL")
LUDUS_LOCAL_ENV_FILE = local_env_path(BASE_DIR)
LUDUS_MOVE_MS = env_int("LUDUS_MOVE_MS", 1000, minimum=1)
LUDUS_BANK_MS = env_int("LUDUS_BANK_MS", 10000, minimum=0)
LUDUS_MAX_FAULTS = env_int("LUDUS_MAX_FAULTS", 3, minimum=1)
# Version tests (docs/version-tests.md) may take this share of the workers' time while other matches wait.
LUDUS_TEST_SHARE = env_float("LUDUS_TEST_SHARE", 0.25, minimum=0.0)
LUDUS_UPLOAD_MAX_BYTES = env_int("LUDUS_UPLOAD_MAX_BYTES", 1024 * 1024, minimum=1)
LUDUS_UPLOAD_RATE = env_str("LUDUS_UPLOAD_RATE", "20/hour")
LUDUS_UPLOAD_MAX_UNPACKED_BYTES = env_int("LUDUS_UPLOAD_MAX_UNPACKED_BYTES", 8 * 1024 * 1024, minimum=1,
                                          maximum=16 * 1024 * 1024)  # a seat's files sit on the worker's disk
# The upload API and the sandbox read a bot with these same limits (tournaments.uploads.bot_files).
LUDUS_UPLOAD_MAX_FILES = env_int("LUDUS_UPLOAD_MAX_FILES", 200, minimum=1, maximum=256)
LUDUS_UPLOAD_MAX_RATIO = env_int("LUDUS_UPLOAD_MAX_RATIO", 100, minimum=2)  # per zip entry, against zip bombs
if not re.fullmatch(r"\d+/(s|sec|m|min|h|hour|d|day)", LUDUS_UPLOAD_RATE):
    raise ImproperlyConfigured(f"environment variable LUDUS_UPLOAD_RATE must look like 20/hour, "
                               f"got {LUDUS_UPLOAD_RATE!r}")
LUDUS_MATCH_REQUEST_RATE = env_str("LUDUS_MATCH_REQUEST_RATE", "60/hour")  # POST /api/matches/ per user
if not re.fullmatch(r"\d+/(s|sec|m|min|h|hour|d|day)", LUDUS_MATCH_REQUEST_RATE):
    raise ImproperlyConfigured(f"environment variable LUDUS_MATCH_REQUEST_RATE must look like 60/hour, "
                               f"got {LUDUS_MATCH_REQUEST_RATE!r}")
REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"] = {"uploads": LUDUS_UPLOAD_RATE, "matches": LUDUS_MATCH_REQUEST_RATE}
LUDUS_FEED_SECONDS = env_int("LUDUS_FEED_SECONDS", 60, minimum=0)  # one live-feed connection at most this long
LUDUS_FEED_POLL_SECONDS = float(env_int("LUDUS_FEED_POLL_MS", 500, minimum=10)) / 1000
# Open live feeds at once: per client (user, or address) and in all (across web processes when CACHE_URL is set).
LUDUS_FEED_MAX_PER_CLIENT = env_int("LUDUS_FEED_MAX_PER_CLIENT", 4, minimum=1)
LUDUS_FEED_MAX_OPEN = env_int("LUDUS_FEED_MAX_OPEN", 200, minimum=1)
LUDUS_VALIDATION_MAX_FAULTS = env_int("LUDUS_VALIDATION_MAX_FAULTS", 0, minimum=0)  # faults a new version may make
LUDUS_VALIDATION_LEASE_SECONDS = env_int("LUDUS_VALIDATION_LEASE_SECONDS", 600, minimum=30)
LUDUS_FLAG_WINDOW = env_int("LUDUS_FLAG_WINDOW", 10, minimum=1)  # a bot's last N finished matches...
LUDUS_FLAG_FAULT_PERCENT = env_int("LUDUS_FLAG_FAULT_PERCENT", 50, minimum=1, maximum=100)  # ...this many faulty
LUDUS_FLAG_FORFEITS = env_int("LUDUS_FLAG_FORFEITS", 3, minimum=1)  # or this many forfeits in a row
# A match with sandboxed seats is played on one CPU with them, leased among a machine's runners
# (workers/sandbox/pinning.py).
LUDUS_PIN_MATCHES = env_bool("LUDUS_PIN_MATCHES", True)
LUDUS_WORKER_CONCURRENCY = env_int("LUDUS_WORKER_CONCURRENCY", os.cpu_count() or 1, minimum=1)
LUDUS_MATCH_ATTEMPTS = env_int("LUDUS_MATCH_ATTEMPTS", 3, minimum=1)
# Ratings: provisional while sigma is above this (the prior is 25/3, about 8.33; docs/tournaments.md#ratings).
LUDUS_PROVISIONAL_SIGMA = env_float("LUDUS_PROVISIONAL_SIGMA", 5.5, minimum=0.0)
LUDUS_MATCH_TIME_LIMIT = env_int("LUDUS_MATCH_TIME_LIMIT", 900, minimum=10)  # seconds, the hard kill of one match
# A runner renews its lease every heartbeat while it holds a match (workers/runner.py), so the lease only has to
# outlive a few missed heartbeats: a stopped or vanished worker's match goes back to the queue within a minute or two.
LUDUS_HEARTBEAT_SECONDS = env_int("LUDUS_HEARTBEAT_SECONDS", 15, minimum=1)
LUDUS_LEASE_SECONDS = env_int("LUDUS_LEASE_SECONDS", 6 * LUDUS_HEARTBEAT_SECONDS, minimum=2 * LUDUS_HEARTBEAT_SECONDS)
# Recovery (docs/operations.md, "Recovery"): a queued match sent this long ago whose message the broker no longer
# holds lost it (a restart without persistence, a worker killed with it) and is sent again; a backlog never is.
LUDUS_REDISPATCH_SECONDS = env_int("LUDUS_REDISPATCH_SECONDS", 10, minimum=1)
LUDUS_DISPATCH_SECONDS = env_int("LUDUS_DISPATCH_SECONDS", 5, minimum=1)  # beat sends the outbox this often
LUDUS_RETRY_SECONDS = env_int("LUDUS_RETRY_SECONDS", 5, minimum=0)  # a failed attempt's back-off, doubled each time
# A worker that fails this many matches in a row for infrastructure causes stops taking matches (workers/health.py).
LUDUS_WORKER_FAILURE_LIMIT = env_int("LUDUS_WORKER_FAILURE_LIMIT", 3, minimum=1)
# The most matches one tournament may schedule at once; more is refused with this number in the error.
LUDUS_TOURNAMENT_MAX_MATCHES = env_int("LUDUS_TOURNAMENT_MAX_MATCHES", 5000, minimum=1)

# --- Replay files (docs/operations.md#the-replay-store) -----------------------------------------------------------
# The action logs live in the storage named "replays", the database keeping each one's sha256 and key. Unset
# LUDUS_REPLAY_STORE: files under LUDUS_REPLAY_DIR (the embedded demo, development, tests). s3://bucket[/prefix]: an
# S3-compatible store (MinIO, AWS S3) at LUDUS_REPLAY_STORE_ENDPOINT (unset: AWS), its keys from AWS_ACCESS_KEY_ID
# and AWS_SECRET_ACCESS_KEY as boto3 reads them. A store that does not answer within LUDUS_REPLAY_STORE_TIMEOUT
# leaves the replay in the database, pending, until beat's housekeeping moves it (every LUDUS_REPLAY_MOVE_SECONDS).
LUDUS_REPLAY_STORE = env_optional("LUDUS_REPLAY_STORE")
LUDUS_REPLAY_DIR = Path(env_str("LUDUS_REPLAY_DIR", str(BASE_DIR / "var" / "store")))


def replay_storage(store: str | None, directory: Path, endpoint: str | None = None, region: str = "us-east-1",
                   timeout: float = 5.0) -> dict[str, object]:
    """The STORAGES entry of the replay store: the directory when store is None, else the S3 bucket it names."""
    if not store:
        return {"BACKEND": "django.core.files.storage.FileSystemStorage",
                "OPTIONS": {"location": str(directory), "base_url": None}}
    found = re.fullmatch(r"s3://([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])(/[\w./-]*)?", store)
    if not found:
        raise ImproperlyConfigured(f"environment variable LUDUS_REPLAY_STORE must look like s3://bucket or "
                                   f"s3://bucket/prefix, got {store!r}")
    # Only where a store is configured: boto3 and botocore take 0.1 s to import.
    from boto3.s3.transfer import TransferConfig
    from botocore.config import Config

    return {"BACKEND": "storages.backends.s3.S3Storage", "OPTIONS": {
        "bucket_name": found[1], "location": (found[2] or "").strip("/"), "endpoint_url": endpoint,
        "region_name": region,
        "file_overwrite": True,  # a key is its content's digest: writing it again writes the same bytes
        "querystring_auth": False, "default_acl": None,
        "transfer_config": TransferConfig(use_threads=False),  # a replay is one small PUT: no thread pool for it
        # application/gzip: not a gzip Content-Encoding, which some clients would undo on the way
        "object_parameters": {"ContentType": "application/gzip"},
        "client_config": Config(connect_timeout=timeout, read_timeout=timeout,
                                retries={"max_attempts": 2, "mode": "standard"},
                                s3={"addressing_style": "path"},  # MinIO's buckets are paths, not host names
                                signature_version="s3v4")}}


STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    "replays": replay_storage(LUDUS_REPLAY_STORE, LUDUS_REPLAY_DIR, env_optional("LUDUS_REPLAY_STORE_ENDPOINT"),
                              env_str("LUDUS_REPLAY_STORE_REGION", "us-east-1"),
                              env_float("LUDUS_REPLAY_STORE_TIMEOUT", 5.0, minimum=0.1)),
}
LUDUS_REPLAY_MOVE_SECONDS = env_int("LUDUS_REPLAY_MOVE_SECONDS", 60, minimum=1)
# Each replay is verified by re-simulation after its match (a task the runner sends); beat verifies every replay still
# unverified this many seconds after its result was recorded (a lost message), and looks this often.
LUDUS_VERIFY_SWEEP_SECONDS = env_int("LUDUS_VERIFY_SWEEP_SECONDS", 60, minimum=1)

# --- Celery (read by config/celery.py through the CELERY_ namespace) ----------------------------------------------
CELERY_BROKER_URL = env_optional("CELERY_BROKER_URL")  # unset: the embedded runner in manage.py
CELERY_RESULT_BACKEND = env_optional("CELERY_RESULT_BACKEND")
CELERY_TASK_DEFAULT_QUEUE = env_str("LUDUS_QUEUE", "ludus")
# Beside the matches' queue: `<queue>.control` for beat's housekeeping (the reaper must not wait behind a backlog of
# matches) and `<queue>.validation` for new versions' smoke matches (an author's feedback must not either). A worker
# started without -Q consumes all three in turn; `-Q ludus.validation` dedicates workers to validation.
CELERY_TASK_QUEUES = [Queue(f"{CELERY_TASK_DEFAULT_QUEUE}{suffix}") for suffix in ("", ".control", ".validation")]
CELERY_TASK_ROUTES = {
    **{name: {"queue": f"{CELERY_TASK_DEFAULT_QUEUE}.control"} for name in (
        "workers.requeue_expired", "workers.send_outbox", "workers.revalidate_stale", "workers.flag_faulty_bots",
        "workers.schedule_ladders",
        "workers.advance_tournaments", "workers.advance_version_tests", "workers.move_pending_replays",
        "workers.sweep_unverified_replays")},
    "workers.validate_version": {"queue": f"{CELERY_TASK_DEFAULT_QUEUE}.validation"},
}
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_TIME_LIMIT = LUDUS_MATCH_TIME_LIMIT
CELERY_TASK_SOFT_TIME_LIMIT = LUDUS_MATCH_TIME_LIMIT - 5
# Redis re-delivers an unacknowledged task after this; above the hard limit, or a slow match would run twice at once.
# A redelivery while the first runner still plays is harmless (its lease refuses the claim), so tests shorten it.
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": env_int("LUDUS_VISIBILITY_TIMEOUT", LUDUS_MATCH_TIME_LIMIT * 2 + 300, minimum=1)
}
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_WORKER_HIJACK_ROOT_LOGGER = False
# Celery's Django fix-up closes the database connections before and after every task unless this is set, and a worker
# then connected anew for every match (9 ms a match, docs/scaling.md section 1). Kept for this many tasks instead; one
# that a task left broken or in a transaction is closed before the next task (config/celery.py).
CELERY_DB_REUSE_MAX = 1000
CELERY_BEAT_SCHEDULE_FILENAME = env_str("CELERY_BEAT_SCHEDULE_FILENAME", str(BASE_DIR / "var" / "celerybeat-schedule"))
CELERY_BEAT_SCHEDULE = {
    "requeue-expired": {"task": "workers.requeue_expired", "schedule": env_int("LUDUS_REAPER_SECONDS", 60, minimum=1)},
    "send-outbox": {"task": "workers.send_outbox", "schedule": LUDUS_DISPATCH_SECONDS},
    "revalidate-stale": {"task": "workers.revalidate_stale",
                         "schedule": env_int("LUDUS_REAPER_SECONDS", 60, minimum=1)},
    "flag-faulty-bots": {"task": "workers.flag_faulty_bots", "schedule": env_int("LUDUS_FLAG_SECONDS", 300, minimum=1)},
    "schedule-ladders": {"task": "workers.schedule_ladders",
                         "schedule": env_int("LUDUS_LADDER_SECONDS", 10, minimum=1)},
    "advance-tournaments": {"task": "workers.advance_tournaments",
                            "schedule": env_int("LUDUS_REAPER_SECONDS", 60, minimum=1)},
    "advance-version-tests": {"task": "workers.advance_version_tests", "schedule": LUDUS_DISPATCH_SECONDS},
    "move-pending-replays": {"task": "workers.move_pending_replays", "schedule": LUDUS_REPLAY_MOVE_SECONDS},
    "sweep-unverified-replays": {"task": "workers.sweep_unverified_replays", "schedule": LUDUS_VERIFY_SWEEP_SECONDS},
}

# --- Operations: the one-beat lease, metrics, logs (docs/operations.md) ----------------------------------------------
# A second beat waits as a standby while the first holds a lease in Redis (workers/beat.py); one that is killed hands
# over after this many seconds.
CELERY_BEAT_SCHEDULER = "workers.beat:LockedScheduler"
LUDUS_BEAT_LOCK_SECONDS = env_int("LUDUS_BEAT_LOCK_SECONDS", 30, minimum=3)
# A Celery worker serves its Prometheus metrics on this port (0: none); it needs PROMETHEUS_MULTIPROC_DIR too.
LUDUS_METRICS_PORT = env_int("LUDUS_METRICS_PORT", 0, minimum=0, maximum=65535)
if LUDUS_METRICS_PORT and not env_optional("PROMETHEUS_MULTIPROC_DIR"):  # else the pool's counts are invisible
    raise ImproperlyConfigured("environment variable LUDUS_METRICS_PORT needs PROMETHEUS_MULTIPROC_DIR: a directory "
                               "of this worker's own (docs/operations.md)")
# When set, the web's /metrics answers only `Authorization: Bearer <token>` (Prometheus' `authorization` setting).
LUDUS_METRICS_TOKEN = env_optional("LUDUS_METRICS_TOKEN")
# Without a token, /metrics is open only in development: a production web (DEBUG off) answers it 403.
LUDUS_METRICS_OPEN_WITHOUT_TOKEN = DEBUG
LOG_FORMAT = env_choice("LOG_FORMAT", "text", ("text", "json"))  # json: one object per line, for log collectors
_JSON_LOGS = {"()": "pythonjsonlogger.json.JsonFormatter",
              "fmt": "%(asctime)s %(levelname)s %(name)s %(process)d %(message)s", "datefmt": "%Y-%m-%dT%H:%M:%S%z",
              "rename_fields": {"asctime": "time", "levelname": "level", "name": "logger", "process": "pid"}}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"json": _JSON_LOGS,
                   "text": {"format": "%(asctime)s %(levelname)s %(name)s %(process)d %(message)s",
                            "datefmt": "%Y-%m-%dT%H:%M:%S%z"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": LOG_FORMAT}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "WARNING")},
}
