"""Replay files in the storage named "replays" (docs/operations.md#the-replay-store).

A replay's compressed action log is stored under a key made from its sha256 (`replays/ab/abcd….json.gz`), so writing
it twice writes it once, and a retried result points at the file its first attempt wrote. The database keeps the
digest beside the key, and every read checks the bytes against it. The store is the filesystem (the embedded demo,
development) or an S3-compatible one (MinIO, S3) through django-storages, as config/settings.py chooses.
"""

from __future__ import annotations

import hashlib
import logging
import time
import weakref
from dataclasses import dataclass

from django.core.files.base import ContentFile
from django.core.files.storage import Storage, storages

from replays.verify import ReplayMismatch
from tournaments.health import Unavailable

logger = logging.getLogger(__name__)

# After a write the store did not take, this process's results skip it for this long (their replays go pending at
# once): an outage costs one match the store's timeouts every SKIP_SECONDS, not every match.
SKIP_SECONDS = 10.0
# Keyed by the store object: a changed STORAGES setting (a test's) makes a new one, with no outage behind it.
_skipped_until: weakref.WeakKeyDictionary[Storage, float] = weakref.WeakKeyDictionary()


class ReplayUnavailable(Unavailable):
    """The replay store did not answer (down, unreachable, refusing); the message names the key and the cause. A
    request that meets it gets a 503 that says to retry (tournaments.health.UnavailableMiddleware)."""

    service = "the replay store"


class ReplayDigestMismatch(ReplayMismatch):
    """A replay's bytes are not the ones recorded: their sha256 differs from the digest the database keeps."""


@dataclass(frozen=True)
class Placement:
    """Where a replay's action log goes: `key` in the store, or "" when the store did not take it (the bytes then stay
    in the database, pending)."""

    data: bytes
    digest: str
    key: str


def replay_store() -> Storage:
    return storages["replays"]


def digest_of(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def key_for(digest: str) -> str:
    """The key of the file with this sha256; two hex digits of fan-out keep a filesystem directory small."""
    return f"replays/{digest[:2]}/{digest}.json.gz"


def check_digest(data: bytes, digest: str, where: str) -> bytes:
    """The data, when its sha256 is digest; raises ReplayDigestMismatch naming where it was read from."""
    found = digest_of(data)
    if found != digest:
        raise ReplayDigestMismatch(f"{where}: the stored bytes ({len(data)}) have sha256 {found}, "
                                   f"but the database records {digest}; the file is corrupt or not this replay's")
    return data


def write_file(data: bytes, digest: str) -> str:
    """Write the action log (whose sha256 is digest) under its content's key and return the key; raises
    ReplayUnavailable. Idempotent: a key already present with these very bytes is left as it is."""
    key = key_for(digest)
    store = replay_store()
    try:
        # An S3 store overwrites (file_overwrite): one PUT, no HEAD before it; a directory refuses to, so ask first.
        if getattr(store, "file_overwrite", False) or not _holds(store, key, digest):
            name = store.save(key, ContentFile(data))
            if name != key:  # a concurrent writer of the same bytes took the key first on a filesystem: keep theirs
                store.delete(name)
    except Exception as exc:  # whatever the backend raises (botocore, OSError): the store did not take it
        raise ReplayUnavailable(f"writing {key} to the replay store failed: {type(exc).__name__}: {exc}") from exc
    return key


def _holds(store: Storage, key: str, digest: str) -> bool:
    """Whether the store has the file under key with the bytes its digest names. A file there with other bytes
    (corrupted on disk) is deleted, to be written again: trusted, it would fail every replay that has these bytes."""
    if not store.exists(key):
        return False
    with store.open(key, "rb") as file:
        if digest_of(file.read()) == digest:
            return True
    logger.warning("replay file %s does not hold the bytes its key names (corrupt): writing it again", key)
    store.delete(key)
    return False


def read_file(key: str, digest: str) -> bytes:
    """The bytes stored under key, checked against digest; raises ReplayUnavailable or ReplayDigestMismatch."""
    try:
        with replay_store().open(key, "rb") as file:
            data = file.read()
    except Exception as exc:
        raise ReplayUnavailable(f"reading {key} from the replay store failed: {type(exc).__name__}: {exc}") from exc
    return check_digest(bytes(data), digest, f"replay file {key}")


def place(data: bytes) -> Placement:
    """Write the action log to the store, before the result's transaction; when the store does not take it, say so
    (key "") and log why: the match still finishes, its replay pending in the database."""
    digest, store = digest_of(data), replay_store()
    if time.monotonic() < _skipped_until.get(store, 0.0):
        return Placement(data, digest, "")
    try:
        return Placement(data, digest, write_file(data, digest))
    except ReplayUnavailable as exc:
        _skipped_until[store] = time.monotonic() + SKIP_SECONDS
        logger.warning("replay kept in the database, pending (the store is not asked again for %.0f s): %s",
                       SKIP_SECONDS, exc)
        return Placement(data, digest, "")
