"""What the competition app tells the apps above it (docs/architecture.md#four-packages-one-direction: replays imports
tournaments, never the reverse).

`attempt_ended` is sent inside the transaction that ends an attempt at a match: finished (with the verified replay
document), failed, requeued or cancelled (document None). Receivers write in that same transaction, and an exception
they raise rolls it back, so a result and its replay are stored together or not at all. replays/signals.py stores
the replay and drops the live progress.
"""

from django.dispatch import Signal

attempt_ended = Signal()  # keyword arguments: match_id (int), match (the Match, when finished), document (dict | None)
