"""The rating a table shows, and when it is still provisional: one rule for the pages, the API and the CLI.

The conservative rating is OpenSkill's mu - 3 sigma (docs/architecture.md#tournaments-ladders-and-ratings): a bot ranks
high only once the model is
fairly sure of it. A rating is provisional while it has no game yet or its sigma is above
LUDUS_PROVISIONAL_SIGMA: it still moves a lot.
"""

from __future__ import annotations

from django.conf import settings
from django.db.models import F
from django.db.models.expressions import CombinedExpression

SIGMAS = 3


def conservative(mu: float, sigma: float) -> float:
    return mu - SIGMAS * sigma


def conservative_in_sql() -> CombinedExpression:
    """The same rating as a database expression over a row's `mu` and `sigma`, to order a table in SQL."""
    return F("mu") - SIGMAS * F("sigma")


def provisional_sigma() -> float:
    return float(settings.LUDUS_PROVISIONAL_SIGMA)


def is_provisional(sigma: float, games: int) -> bool:
    return games == 0 or sigma > provisional_sigma()
