"""The root URL routes: the admin, the API and its schema, the pages and the replay viewer; each app keeps its own
routes (tournaments/api/urls.py, replays/api/urls.py, tournaments/pages/urls.py, replays/urls.py) and is included
here."""

from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularSwaggerSplitView
from rest_framework.negotiation import DefaultContentNegotiation

from replays.api import urls as replays_api
from tournaments.api import urls as tournaments_api
from tournaments.api.root import api_root
from tournaments.api.schema_view import BuiltOnceSchemaView

# The REST API, one namespace (`api`) for both apps' routes: the tournaments app's, the replays app's (replays, frames,
# the live feeds), then a JSON 404 for every other path under /api/.
API = ([*tournaments_api.urlpatterns, *replays_api.urlpatterns, tournaments_api.NOT_FOUND], "api")

urlpatterns = [
    path("admin/", admin.site.urls),
    # DRF's own negotiation here: `?format=json` picks the JSON schema (the API itself ignores `?format=`). Built
    # once per process (tournaments/api/schema_view.py).
    path("api/schema/", BuiltOnceSchemaView.as_view(content_negotiation_class=DefaultContentNegotiation),
         name="schema"),
    # The split view serves Swagger UI's start-up script as a file: no inline script (the Content-Security-Policy).
    path("api/docs/", SpectacularSwaggerSplitView.as_view(url_name="schema"), name="api-docs"),
    path("api/", api_root, name="api-root"),
    path("api/", include(API)),
    path("accounts/", include("django.contrib.auth.urls")),  # login and logout for the pages
    path("replays/", include("replays.urls")),
    path("", include("tournaments.pages.urls")),
]
