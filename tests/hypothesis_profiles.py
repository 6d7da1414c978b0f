"""Hypothesis settings profiles, chosen by HYPOTHESIS_PROFILE (default `ci`); loaded by tests/conftest.py.

- `ci` (make test): derandomized, so every run checks the same examples and takes the same time;
- `check` (make check, the everyday loop): derandomized, a third of the budgets (at least one example), and a test
  that checks every step of a whole game checks every third (`is_probed`); make test still runs them all;
- `dev`: random examples each run, the same budgets (HYPOTHESIS_PROFILE=dev pytest ...), to explore;
- `nightly` (make test-nightly): random examples, DEEP times the budgets, and the conformance suite probes every
  step (or many more of them) instead of a sample.
Budgets in tests go through `examples(n)`, since a test's own `@settings(max_examples=...)` overrides a profile; a test
that checks every step of a whole game asks `is_probed(step)`.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

DEEP = 8  # the nightly profile's multiplier of every example budget
QUICK = 3  # the check profile's divisor
COMMON = {"deadline": None, "suppress_health_check": [HealthCheck.too_slow], "print_blob": True}
settings.register_profile("ci", derandomize=True, database=None, **COMMON)
settings.register_profile("check", derandomize=True, database=None, max_examples=100 // QUICK, **COMMON)
settings.register_profile("dev", **COMMON)
settings.register_profile("nightly", max_examples=100 * DEEP, **COMMON)  # for tests without budgets of their own
PROFILE = os.environ.get("HYPOTHESIS_PROFILE", "ci")
settings.load_profile(PROFILE)  # an unknown name fails here, naming it


def is_deep() -> bool:
    """True under the nightly profile: tests go deeper, not only wider."""
    return PROFILE == "nightly"


def examples(n: int) -> int:
    """A test's example budget under the current profile."""
    if PROFILE == "check":
        return max(1, n // QUICK)
    return n * DEEP if is_deep() else n


def is_probed(step: int) -> bool:
    """Whether a test that checks every step of a game (or each of a fixed list of games) checks this one: all of
    them, but every QUICK-th under the check profile (a game is still played, each step's own work done, in full)."""
    return PROFILE != "check" or step % QUICK == 0
