"""Routes of the replay viewer, included under /replays/ by config/urls.py."""

from django.urls import path

from replays import branch_pages, head_to_head, scores, seat_logs, views

app_name = "replays"

urlpatterns = [
    path("<int:pk>/", views.viewer, name="viewer"),
    path("<int:pk>/log.json", views.log, name="log"),
    path("<int:pk>/export/", views.export, name="export"),
    path("<int:pk>/scores.json", scores.scores, name="scores"),
    path("<int:pk>/seats/<int:seat>/log.json", seat_logs.seat_log, name="seat_log"),
    path("<int:pk>/branch/", branch_pages.branch, name="branch"),
    path("<int:pk>/compare/", branch_pages.compare, name="compare"),
    path("bots/<int:pk>/head-to-head/", head_to_head.fragment, name="head_to_head"),
    path("games/<str:name>.js", views.game_script, name="game_script"),
]
