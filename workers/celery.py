"""The Celery app, configured from Django settings under the CELERY_ namespace (`celery -A workers worker`)."""

from __future__ import annotations

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tournaments.settings")

app = Celery("ludus", include=["workers.tasks"])
app.config_from_object("django.conf:settings", namespace="CELERY")
