"""The Django project (settings, urls, wsgi) and the competition app: bots, tournaments, matches, ratings."""
