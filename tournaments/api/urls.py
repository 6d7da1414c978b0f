"""Routes of the REST API, included under /api/ by config/urls.py (the replays app's API included)."""

from django.urls import include, path, re_path
from rest_framework.routers import SimpleRouter

from tournaments.api import (
    auth,
    bots,
    competitions,
    games,
    ladder_entries,
    matches,
    notfound,
    standings,
    uploads,
    version_tests,
)

app_name = "api"

router = SimpleRouter()
router.register("bots", bots.BotViewSet, basename="bot")
router.register("ladders", competitions.LadderViewSet, basename="ladder")
router.register("tournaments", competitions.TournamentViewSet, basename="tournament")
router.register("matches", matches.MatchViewSet, basename="match")
router.register("tests", version_tests.VersionTestViewSet, basename="version-test")

urlpatterns = [
    path("auth/token/", auth.TokenLoginView.as_view(), name="token-login"),
    path("games/", games.GameListView.as_view(), name="game-list"),
    path("games/<str:name>/", games.GameDetailView.as_view(), name="game-detail"),
    path("bots/upload/", uploads.UploadView.as_view(), name="bot-upload"),
    path("versions/", bots.VersionListView.as_view(), name="version-list"),
    path("versions/<int:pk>/", uploads.VersionDetailView.as_view(), name="version-detail"),
    path("ladders/<int:pk>/standings/", standings.LadderStandingsView.as_view(), name="ladder-standings"),
    path("ladders/<int:pk>/entries/", ladder_entries.LadderEntriesView.as_view(), name="ladder-entries"),
    path("ladders/<int:pk>/entries/<int:version>/", ladder_entries.LadderEntryView.as_view(), name="ladder-entry"),
    path("tournaments/<int:pk>/standings/", standings.TournamentStandingsView.as_view(), name="tournament-standings"),
    path("", include("replays.api.urls")),  # replays, frames and the live feeds (the replays app)
    *router.urls,
    re_path(r"^(?P<path>.*)$", notfound.not_found, name="not-found"),  # last: a JSON 404 for the rest
]
