"""The replay export file, written by the client without the server's code.

A copy of `encode_replay` in replays/format.py, which is the source of truth (docs/architecture.md#replays): the
canonical JSON (sorted keys, no spaces, UTF-8) gzip-compressed with mtime 0. replays/format.py writes the same bytes
faster with orjson; the standard library's spelling is the one it falls back to and must equal.
tests/client/test_replay_file.py keeps the two byte for byte equal.
"""

from __future__ import annotations

import gzip
import json
from typing import Any


def encode_replay(document: dict[str, Any]) -> bytes:
    """The site's export file (`/replays/ID/export/`) for a document {"header", "actions", "footer"}."""
    data = json.dumps(document, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    return gzip.compress(data, compresslevel=6, mtime=0)
