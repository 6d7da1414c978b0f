"""The replays app's API routes, included by config/urls.py under /api/ (in the `api` namespace)."""

from django.urls import path

from replays.api import analysis, branches, feeds, views

urlpatterns = [
    path("ladders/<int:pk>/feed/", feeds.LadderFeedView.as_view(), name="ladder-feed"),
    path("matches/<int:pk>/replay/", views.ReplayView.as_view(), name="match-replay"),
    path("matches/<int:pk>/replay/actions/", views.ActionLogView.as_view(), name="match-actions"),
    path("matches/<int:pk>/frames/", views.FramesView.as_view(), name="match-frames"),
    path("matches/<int:pk>/feed/", feeds.MatchFeedView.as_view(), name="match-feed"),
    path("matches/<int:pk>/branches/", branches.BranchesView.as_view(), name="match-branches"),
    path("matches/<int:pk>/analysis/", analysis.AnalysisView.as_view(), name="match-analysis"),
]
