"""Routes of the tournaments REST API, included under /api/ by tournaments/urls.py."""

from django.urls import path

from tournaments.api import uploads

app_name = "api"

urlpatterns = [
    path("bots/upload/", uploads.UploadView.as_view(), name="bot-upload"),
    path("versions/<int:pk>/", uploads.VersionDetailView.as_view(), name="version-detail"),
]
