"""Routes of the pages, included at the site root by config/urls.py."""

from django.urls import path

from tournaments.pages import rules, signup, version_tests, views

app_name = "pages"

urlpatterns = [
    path("", views.home, name="home"),
    path("ladders/<int:pk>/", views.ladder_detail, name="ladder"),
    path("ladders/<int:pk>/entries/", views.ladder_entry, name="ladder_entry"),
    path("tournaments/<int:pk>/", views.tournament_detail, name="tournament"),
    path("matches/", views.match_list, name="matches"),
    path("bots/<int:pk>/", views.bot_detail, name="bot"),
    path("versions/<int:pk>/", views.version_detail, name="version"),
    path("upload/", views.upload, name="upload"),
    path("accounts/signup/", signup.signup, name="signup"),
    path("rules/<str:game>/", rules.rules, name="rules"),
    path("rules/<str:game>/spec/", rules.rules_spec, name="rules_spec"),
    path("tests/", version_tests.test_list, name="tests"),
    path("tests/<int:pk>/", version_tests.test_detail, name="test"),
    path("versions/<int:pk>/test/", version_tests.start_from_version, name="version_test"),
]
