"""A bot's files: an upload unpacked into the seat's private dir, with the sandbox's own caps (ARCHITECTURE §4).

The upload API checks uploads first (tournaments/uploads.py, with the operator's limits); these checks are the
sandbox's last line, and `check_source` lets callers run them without keeping the files.
"""

from __future__ import annotations

import io
import tempfile
import zipfile
from pathlib import Path, PurePosixPath
from typing import Protocol

MiB = 1 << 20
NAME_MAX = 255  # bytes in one file or folder name (Linux)
PATH_MAX = 1024  # bytes in a path inside the bot: far below the kernel's 4096, with the seat dir in front


class UploadCaps(Protocol):
    """What unpacking needs of a SandboxConfig."""

    @property
    def upload_bytes(self) -> int: ...

    @property
    def upload_files(self) -> int: ...


class DefaultCaps:
    upload_bytes = 16 * MiB
    upload_files = 256


DEFAULT_CAPS = DefaultCaps()


class BadBotSource(ValueError):
    """An upload that is not a .py file or a .zip with main.py within the size limits."""


# --- the bot's files ----------------------------------------------------------------------------------------------


def unpack_bot(source: bytes, filename: str, dest: Path, config: UploadCaps = DEFAULT_CAPS) -> None:
    """Write an upload into dest as main.py (a .py) or its files (a .zip with main.py). Raises BadBotSource."""
    dest.mkdir(mode=0o755, exist_ok=True)
    suffix = filename.lower().rsplit(".", 1)[-1]
    if suffix == "py":
        if len(source) > config.upload_bytes:
            raise BadBotSource(f"{filename} is {len(source)} bytes, over the {config.upload_bytes} limit")
        write_file(dest / "main.py", source)
    elif suffix == "zip":
        _unpack_zip(source, filename, dest, config)
    else:
        raise BadBotSource(f"a bot is a .py file or a .zip with main.py, got {filename!r}")


def check_source(source: bytes, filename: str, config: UploadCaps = DEFAULT_CAPS) -> None:
    """Validate an upload without keeping it (for the upload API). Raises BadBotSource."""
    with tempfile.TemporaryDirectory(prefix="ludus-check-") as tmp:
        unpack_bot(source, filename, Path(tmp) / "bot", config)


def _unpack_zip(source: bytes, filename: str, dest: Path, config: UploadCaps) -> None:
    try:
        archive = zipfile.ZipFile(io.BytesIO(source))
        members = [m for m in archive.infolist() if not m.is_dir()]
    except (zipfile.BadZipFile, ValueError) as exc:
        raise BadBotSource(f"{filename} is not a zip file: {exc}") from None
    if len(members) > config.upload_files:
        raise BadBotSource(f"{filename} holds {len(members)} files, over the {config.upload_files} limit")
    names = [_safe_name(m.filename, filename) for m in members]
    if len(set(names)) != len(names):
        raise BadBotSource(f"{filename} holds the same path twice")
    _refuse_file_folder_clash(names, filename)
    strip = _common_folder(names)
    if "main.py" not in {"/".join(n[strip:]) for n in names}:
        raise BadBotSource(f"{filename} has no main.py at its top level")
    try:
        _extract(archive, members, [n[strip:] for n in names], dest, config.upload_bytes, filename)
    except (zipfile.BadZipFile, NotImplementedError, RuntimeError, EOFError, OSError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc  # never the host's path
        raise BadBotSource(f"{filename} cannot be unpacked: {reason}") from None


def _extract(archive: zipfile.ZipFile, members: list[zipfile.ZipInfo], names: list[tuple[str, ...]], dest: Path,
             limit: int, filename: str) -> None:
    budget = limit
    with archive:
        for member, name in zip(members, names, strict=True):
            with archive.open(member) as stream:
                data = stream.read(budget + 1)  # never more than the budget, whatever the header claims
            budget -= len(data)
            if budget < 0:
                raise BadBotSource(f"{filename} unpacks to more than {limit} bytes")
            target = dest.joinpath(*name)
            _make_dirs(dest, target.parent)
            write_file(target, data)


def _safe_name(name: str, filename: str) -> tuple[str, ...]:
    parts = PurePosixPath(name.replace("\\", "/")).parts
    if not parts or name.startswith("/") or any(p in ("..", "") for p in parts) or ":" in parts[0]:
        raise BadBotSource(f"{filename} holds an unsafe path {name!r}")
    return _short_enough(parts, filename)


def _short_enough(parts: tuple[str, ...], filename: str) -> tuple[str, ...]:
    """Refuse names the host could not create, before any is written (an OSError would show the host's path)."""
    long = next((p for p in parts if len(p.encode()) > NAME_MAX), None)
    if long is not None:
        raise BadBotSource(f"{filename} holds a name of {len(long.encode())} bytes, over the {NAME_MAX}-byte limit: "
                           f"{long[:40]!r}...")
    if len("/".join(parts).encode()) > PATH_MAX:
        raise BadBotSource(f"{filename} holds a path of {len('/'.join(parts).encode())} bytes, over the "
                           f"{PATH_MAX}-byte limit: {'/'.join(parts)[:40]!r}...")
    return parts


def _refuse_file_folder_clash(names: list[tuple[str, ...]], filename: str) -> None:
    folders = {name[:i] for name in names for i in range(1, len(name))}
    clash = next((name for name in names if name in folders), None)
    if clash is not None:
        raise BadBotSource(f"{filename}: {'/'.join(clash)!r} is both a file and a folder")


def _common_folder(names: list[tuple[str, ...]]) -> int:
    """1 when every file sits in one top folder holding main.py (a zipped folder), else 0."""
    tops = {n[0] for n in names}
    return 1 if len(tops) == 1 and all(len(n) > 1 for n in names) and any(n[1:] == ("main.py",) for n in names) else 0


def _make_dirs(root: Path, directory: Path) -> None:
    for parent in reversed([directory, *directory.parents]):
        if parent.is_relative_to(root) and not parent.exists():
            parent.mkdir(mode=0o755)


def write_file(path: Path, data: bytes) -> None:
    path.write_bytes(data)
    path.chmod(0o444)
