"""Whole numbers as people type them into forms, paths and JSON: one check for every door."""

from __future__ import annotations

MAX_ID = 2**63 - 1  # a database id (bigint)


def is_whole(raw: str) -> bool:
    """Whether the text is a whole number in ASCII digits (`str.isdigit` takes "²", which `int` refuses)."""
    return raw.isascii() and raw.isdigit()
