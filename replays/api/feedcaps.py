"""Caps on open live feeds: at most LUDUS_FEED_MAX_PER_CLIENT per client and LUDUS_FEED_MAX_OPEN in all.

DRF's throttles count requests per time window; a feed is one request held open for up to a minute, so what needs a
cap is the number open at once, and no well-kept Django library caps that. Each open feed holds two slots, keys
added to the cache with `add` (atomic: Redis SET NX when CACHE_URL is set, so the cap holds across every web
process; a per-process memory cache without it). A feed gives its slots back when its response closes; if its
process dies, the slots expire once no feed could still be open (LUDUS_FEED_SECONDS plus a margin).
"""

from __future__ import annotations

import random
from typing import Any

from django.conf import settings
from django.core.cache import cache
from rest_framework import exceptions

SLOT_MARGIN_SECONDS = 60


class Lease:
    """The slots one open feed holds; release() gives them back (once)."""

    def __init__(self, keys: list[str]) -> None:
        self.keys = keys

    def release(self) -> None:
        if self.keys:
            cache.delete_many(self.keys)
            self.keys = []


def client_of(request: Any) -> str:
    """Who counts as one client: a signed-in user, or else an address (uvicorn's --forwarded-allow-ips makes it
    the client's own behind a proxy)."""
    if request.user and request.user.is_authenticated:
        return f"user:{request.user.pk}"
    return f"address:{request.META.get('REMOTE_ADDR', '')}"


def open_feed(request: Any) -> Lease:
    """Take a slot of the client's and one of the site's; raises Throttled (429) naming the cap that is full."""
    per_client, in_all = settings.LUDUS_FEED_MAX_PER_CLIENT, settings.LUDUS_FEED_MAX_OPEN
    mine = _take(f"client:{client_of(request)}", per_client)
    if mine is None:
        raise exceptions.Throttled(detail=f"you have {per_client} live feeds open already "
                                          "(LUDUS_FEED_MAX_PER_CLIENT): close one, then retry")
    site = _take("all", in_all)
    if site is None:
        cache.delete(mine)
        raise exceptions.Throttled(detail=f"the site has its {in_all} live feeds open (LUDUS_FEED_MAX_OPEN): "
                                          "retry in a minute")
    return Lease([mine, site])


def _take(owner: str, cap: int) -> str | None:
    """A free slot of this owner's `cap`, or None when all are taken. Probing starts anywhere, so a nearly full
    site does not probe the same taken slots first on every request."""
    timeout = settings.LUDUS_FEED_SECONDS + SLOT_MARGIN_SECONDS
    first = random.randrange(cap)
    for offset in range(cap):
        key = f"ludus:feed:{owner}:{(first + offset) % cap}"
        if cache.add(key, 1, timeout):
            return key
    return None
