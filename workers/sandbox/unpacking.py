"""A seat's files on the host (docs/architecture.md#bots-the-wire-protocol-and-the-sandbox): the bot's files written
into the seat's private dir, and the SDK and engine every seat is given.

What a bot's files are, and every check on them, is tournaments/uploads.py's one reading of an upload (`bot_files`),
with the operator's limits, which the worker passes in (SandboxConfig.upload_limits, from settings LUDUS_UPLOAD_*): a
stored version is read exactly as its upload was checked, so the upload API and the sandbox can never disagree on
what a bot may hold.
"""

from __future__ import annotations

import functools
import hashlib
import os
import shutil
import stat
import subprocess
import tempfile
from pathlib import Path

from tournaments.uploads import BadUpload, UploadLimits, bot_files
from workers.sandbox.bwrap import SANDBOX_ENV, SDK_DIR, SandboxUnavailable

SDK_SOURCE = Path(__file__).resolve().parents[2] / "engine" / "sdk.py"


class BadBotSource(ValueError):
    """An upload that is not a .py file or a .zip with main.py within the limits."""


def unpack_bot(source: bytes, filename: str, dest: Path, limits: UploadLimits) -> None:
    """Write a bot's files into dest (main.py, and the rest of a zip's files). Raises BadBotSource."""
    try:
        files = bot_files(filename, source, limits)
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


_COMPILE = """
import py_compile, sys
py_compile.compile(sys.argv[1], cfile=sys.argv[2], dfile="/ludus/ludus.py", doraise=True,
                   invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH)
print(sys.implementation.cache_tag)
"""


@functools.lru_cache(maxsize=4)
def sdk_bytecode(executable: str) -> tuple[str, bytes]:
    """The SDK compiled once per worker process by the sandbox's interpreter: its `__pycache__` file name and bytes.

    A seat's /ludus is read-only and its bots run with PYTHONDONTWRITEBYTECODE, so without this every seat compiled
    the SDK from source as it booted. An unchecked-hash .pyc is used as it is: the source beside it never changes.
    """
    with tempfile.TemporaryDirectory(prefix="ludus-sdk-") as tmp:
        target = Path(tmp) / "ludus.pyc"
        done = subprocess.run([executable, "-S", "-c", _COMPILE, str(SDK_SOURCE), str(target)], capture_output=True,
                              text=True, check=True, timeout=30, env=dict(SANDBOX_ENV), cwd="/")
        return f"ludus.{done.stdout.strip()}.pyc", target.read_bytes()


ENGINE_SOURCE = SDK_SOURCE.parent


@functools.lru_cache(maxsize=4)
def engine_copy(executable: str) -> Path:
    """The engine package that plays the match, copied and compiled by the sandbox's interpreter: bound read-only
    at /ludus/engine in every seat, so that a bot's `import engine` and the SDK's `sim` load exactly these rules
    (docs/bots.md, "Search bots"). Without the bytecode every seat that imports it would compile it as it boots (its
    /ludus is read-only). Named by its content and the interpreter, made whole and renamed into place, so the
    workers of a machine share it (as the seccomp filter's file); only a copy this uid owns and alone may write is
    used. World-readable: seats run as their own uids."""
    digest = hashlib.sha256(executable.encode())
    for path in sorted(ENGINE_SOURCE.rglob("*.py")):
        digest.update(str(path.relative_to(ENGINE_SOURCE)).encode() + b"\0" + path.read_bytes())
    root = Path(tempfile.gettempdir()) / f"ludus-engine-{os.geteuid()}-{digest.hexdigest()[:16]}"
    if not _is_own_dir(root):
        build = Path(tempfile.mkdtemp(prefix=".ludus-engine-"))
        shutil.copytree(ENGINE_SOURCE, build / "engine", ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        subprocess.run([executable, "-S", "-m", "compileall", "-q", "-d", f"{SDK_DIR}/engine", "--invalidation-mode",
                        "unchecked-hash", str(build / "engine")], capture_output=True, check=True, timeout=120,
                       env=dict(SANDBOX_ENV), cwd="/")
        for path in (build, *build.rglob("*")):
            path.chmod(0o755 if path.is_dir() else 0o644)
        try:
            build.rename(root)
        except OSError:  # another worker made it first
            shutil.rmtree(build, ignore_errors=True)
        if not _is_own_dir(root):
            raise SandboxUnavailable(f"{root} is not a directory this worker's user alone may write")
    return root / "engine"


def _is_own_dir(path: Path) -> bool:
    try:
        found = path.lstat()
    except FileNotFoundError:
        return False
    return stat.S_ISDIR(found.st_mode) and found.st_uid == os.geteuid() and not found.st_mode & 0o022
