"""The replays app's REST API (ARCHITECTURE §6, §8): replay header and action log, frames, live feeds.

Routes are in tournaments/api/urls.py, under /api/matches/{id}/ and /api/ladders/{id}/.
"""
