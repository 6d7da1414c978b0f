"""The command line of the golden-file tests (tests/engine/test_bot_choices_golden.py,
tests/replays/test_analysis_golden.py): `--write` writes the file when it is missing (`--overwrite` replaces it, only
for a deliberate change), and without it each case is compared with the file and printed."""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any


def golden_main(argv: Sequence[str] | None, *, prog: str, what: str, path: Path, record: Callable[[], Any],
                check: Callable[[], Iterable[tuple[str, bool]]]) -> int:
    """record() gives the whole file's content; check() yields (case, whether it matches the file)."""
    parser = argparse.ArgumentParser(prog=prog, description=f"Write or check {what}.")
    parser.add_argument("--write", action="store_true", help="write the golden file (only when it is missing)")
    parser.add_argument("--overwrite", action="store_true", help="with --write: replace an existing file")
    args = parser.parse_args(argv)
    if args.write:
        if path.exists() and not args.overwrite:
            print(f"{path} exists: pass --overwrite to replace it (only for a deliberate change of {what})")
            return 1
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(record(), indent=1, sort_keys=True) + "\n", encoding="utf-8")
        print(f"wrote {path}")
        return 0
    failed = 0
    for name, ok in check():
        failed += not ok
        print(f"{name}: {'ok' if ok else 'DIFFERS'}")
    return 1 if failed else 0
