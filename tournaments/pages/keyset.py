"""Match lists read newest first by keyset (docs/architecture.md#api-and-web): a page is the matches with an id below
`?before=`, found through the index on the id, so the thousandth page costs what the first does: no OFFSET, and no
COUNT over every match. The API's lists do the same with DRF's CursorPagination (tournaments/api/common.py)."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import QuerySet
from django.http import HttpRequest, QueryDict

from tournaments.api.common import MAX_ID, is_whole
from tournaments.models import Match

BEFORE = "before"


class BadCursor(ValueError):
    """`?before=` is not a match id."""


@dataclass
class KeysetPage:
    """One page of a match list: its matches, newest first, and the links to the newest and the next older page."""

    object_list: list[Match]
    before: int | None  # the id this page reads below; None for the newest page
    older: int | None  # `?before=` of the next older page; None on the last
    query: str  # the list's other parameters (its filters), url-encoded, without `before` and `page`

    def older_url(self) -> str:
        return self._url(self.older)

    def newest_url(self) -> str:
        return self._url(None)

    def _url(self, before: int | None) -> str:
        parts = [part for part in (self.query, f"{BEFORE}={before}" if before else "") if part]
        return "?" + "&".join(parts)


def read_before(request: HttpRequest) -> int | None:
    """The page's `?before=` id, None when absent; raises BadCursor for anything but a whole number from 1."""
    raw = request.GET.get(BEFORE)
    if raw is None or raw == "":
        return None
    if not is_whole(raw) or not 1 <= int(raw) <= MAX_ID:
        raise BadCursor(f"before must be a match id (a whole number from 1), got {raw!r}")
    return int(raw)


def keyset_page(matches: QuerySet[Match], request: HttpRequest, per_page: int) -> KeysetPage:
    """The page of these matches (ordered newest first by id) below `?before=`; raises BadCursor."""
    before = read_before(request)
    if before is not None:
        matches = matches.filter(pk__lt=before)
    rows = list(matches.order_by("-id")[:per_page + 1])  # one more than shown: is there an older page?
    shown = rows[:per_page]
    older = shown[-1].pk if len(rows) > per_page else None
    return KeysetPage(shown, before, older, other_parameters(request.GET))


def other_parameters(query: QueryDict) -> str:
    kept = query.copy()
    for name in (BEFORE, "page"):
        kept.pop(name, None)
    return str(kept.urlencode())

