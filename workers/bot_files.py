"""A bot's files written into the seat's private dir (docs/architecture.md#bots-the-wire-protocol-and-the-sandbox).

What the files are, and every check on them, is tournaments/uploads.py's one reading of an upload (`bot_files`),
with the operator's limits (settings LUDUS_UPLOAD_*): a stored version is read exactly as its upload was checked,
so the upload API and the sandbox can never disagree on what a bot may hold.
"""

from __future__ import annotations

from pathlib import Path

from tournaments.uploads import BadUpload, UploadLimits, bot_files, upload_limits


class BadBotSource(ValueError):
    """An upload that is not a .py file or a .zip with main.py within the limits."""


def unpack_bot(source: bytes, filename: str, dest: Path, limits: UploadLimits | None = None) -> None:
    """Write a bot's files into dest (main.py, and the rest of a zip's files). Raises BadBotSource."""
    try:
        files = bot_files(filename, source, limits or upload_limits())
    except BadUpload as exc:
        raise BadBotSource(str(exc)) from None
    dest.mkdir(mode=0o755, exist_ok=True)
    for path, data in sorted(files.items()):
        target = dest.joinpath(*path.split("/"))
        _make_dirs(dest, target.parent)
        write_file(target, data)


def _make_dirs(root: Path, directory: Path) -> None:
    for parent in reversed([directory, *directory.parents]):
        if parent.is_relative_to(root) and not parent.exists():
            parent.mkdir(mode=0o755)


def write_file(path: Path, data: bytes) -> None:
    path.write_bytes(data)
    path.chmod(0o444)
