"""The replays app's REST API (docs/architecture.md#replays, docs/architecture.md#api-and-web): replay header and
action log, frames, live feeds.

Routes are in replays/api/urls.py (included by config/urls.py), under /api/matches/{id}/ and /api/ladders/{id}/.
"""
