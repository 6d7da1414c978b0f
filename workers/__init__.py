"""Workers: thin Celery tasks (their app is config/celery.py), the match runner, seat players and the bot sandbox.

Kept import-light on purpose: the DB-free match loop (workers.play) must load without Django or Celery.
"""
