"""Checks on an uploaded bot before anything is stored: pure functions, no database
(docs/architecture.md#bots-the-wire-protocol-and-the-sandbox).

A bot is a single `.py` file, or a `.zip` with `main.py` either at its root or inside one top folder that holds
every file (what zipping a folder gives: `mybot/main.py`, `mybot/lib.py`). This is the layout the sandbox unpacks
(workers/sandbox/unpacking.py); anything the sandbox would refuse or misread is refused here first, with a message
that names the problem.

Two kinds of failure:
- `BadUpload`: the upload itself is malformed (too big, not a zip, a zip bomb, an unsafe path, a link, not UTF-8,
  no main.py, an unknown file type). Nothing is stored.
- Source that does not compile is not an exception: `CheckedUpload.syntax_errors` lists each error with its file,
  line and column, so the service can keep a `rejected` version whose log the author reads.
"""

from __future__ import annotations

import hashlib
import io
import json
import lzma
import re
import stat
import subprocess
import sys
import zipfile
import zlib
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from tournaments.languages import MANIFEST, PYTHON, SOURCE_EXTENSIONS, BadManifest, Manifest, read_manifest

MiB = 1 << 20
NAME_MAX = 255  # bytes in one file or folder name (Linux); the sandbox refuses longer ones (workers/sandbox/)
PATH_MAX = 1024  # bytes in a path inside the bot, as the sandbox caps it
_READ_CHUNK = 1 << 16

# Extensions allowed inside a zip: code (of every language, tournaments/languages.py), text and data a bot may read.
# No native code, no bytecode: a compiled language's binary is built from its source (workers/sandbox/build.py).
ALLOWED_EXTENSIONS = frozenset({
    "txt", "md", "rst", "json", "jsonl", "csv", "tsv", "yaml", "yml", "toml", "cfg", "ini",
    "dat", "bin", "npy", "npz", "pkl", "pickle", *SOURCE_EXTENSIONS,
})
ALLOWED_BARE_NAMES = frozenset({"LICENSE", "README", "COPYING", "NOTICE", "AUTHORS"})
ZIP_METHODS = {zipfile.ZIP_STORED: "stored", zipfile.ZIP_DEFLATED: "deflate", zipfile.ZIP_BZIP2: "bzip2",
               zipfile.ZIP_LZMA: "lzma"}
_SAFE_FILENAME = re.compile(r"[^A-Za-z0-9._-]+")


class BadUpload(ValueError):
    """A malformed upload. The message names the file and the problem, for the author."""


@dataclass(frozen=True)
class UploadLimits:
    """Caps on one upload. The defaults stay below the sandbox's own unpack limits (SandboxConfig)."""

    max_bytes: int = 1 * MiB  # the upload as sent
    max_unpacked_bytes: int = 8 * MiB  # all files of a zip, uncompressed
    max_entries: int = 200  # zip entries, folders included
    max_ratio: int = 100  # uncompressed / compressed, per entry above ratio_floor bytes
    ratio_floor: int = 64 * 1024  # small files of blank lines compress well and are harmless


@dataclass(frozen=True)
class CheckedUpload:
    """An upload that passed the checks: what a BotVersion stores, plus the compile errors, if any."""

    filename: str
    data: bytes
    sha256: str
    size: int
    files: tuple[str, ...]  # as the bot sees them, relative to its folder ("main.py", "lib/util.py")
    syntax_errors: tuple[str, ...] = field(default=())
    manifest: Manifest = PYTHON  # its ludus.toml, or Python without one

    def compiles(self) -> bool:
        return not self.syntax_errors

    def rejection_log(self) -> str:
        """The validation log of a version rejected for its compile errors."""
        head = f"rejected: {self.filename} does not compile, so it was not run. Fix the error and try again.\n"
        return head + "\n".join(self.syntax_errors) + "\n"


def upload_limits() -> UploadLimits:
    """The operator's limits (settings LUDUS_UPLOAD_*); the defaults where no Django project is configured (a
    sandbox driven on its own, as the sandbox tests and benchmarks do)."""
    from django.conf import settings  # here: this module is otherwise pure and is used without Django

    if not settings.configured:
        return UploadLimits()
    return UploadLimits(
        max_bytes=settings.LUDUS_UPLOAD_MAX_BYTES,
        max_unpacked_bytes=settings.LUDUS_UPLOAD_MAX_UNPACKED_BYTES,
        max_entries=settings.LUDUS_UPLOAD_MAX_FILES,
        max_ratio=settings.LUDUS_UPLOAD_MAX_RATIO,
    )


def check_upload(filename: str, data: bytes, limits: UploadLimits = UploadLimits()) -> CheckedUpload:
    """Check an upload; return its normalized record. Raises BadUpload naming the problem."""
    name = normalize_filename(filename)
    if not data:
        raise BadUpload(f"{name} is empty")
    if len(data) > limits.max_bytes:
        raise BadUpload(f"{name} is {len(data)} bytes, over the upload limit of {limits.max_bytes} bytes")
    files = bot_files(name, data, limits)
    manifest = manifest_of(name, files)
    sources = [(_shown(name, path), content) for path, content in files.items()
               if path.endswith(".py") and manifest.language == "python"]
    errors = tuple(e for e in compile_errors(sources) if e)
    return CheckedUpload(filename=name, data=bytes(data), sha256=hashlib.sha256(data).hexdigest(), size=len(data),
                         files=tuple(sorted(files)), syntax_errors=errors, manifest=manifest)


def manifest_of(name: str, files: dict[str, bytes]) -> Manifest:
    """The bot's manifest (tournaments/languages.py); Python with main.py when it has none. Raises BadUpload."""
    if MANIFEST not in files:
        return PYTHON
    try:
        manifest = read_manifest(files[MANIFEST])
    except BadManifest as exc:
        raise BadUpload(f"{name}: {exc}") from None
    if manifest.language == "python" and (manifest.run != PYTHON.run or "main.py" not in files):
        raise BadUpload(f"{name}: a Python bot runs main.py ({' '.join(PYTHON.run)}); remove run from {MANIFEST}")
    return manifest


def bot_files(filename: str, data: bytes, limits: UploadLimits = UploadLimits()) -> dict[str, bytes]:
    """The bot's files by their path in its folder ({"main.py": ...} for a .py file). The one reading of an upload:
    check_upload uses it, and so does the sandbox when it unpacks a stored version (workers/sandbox/unpacking.py),
    with the same limits. Raises BadUpload naming the problem."""
    name = normalize_filename(filename)
    if not data:
        raise BadUpload(f"{name} is empty")
    if name.endswith(".py"):
        if len(data) > limits.max_unpacked_bytes:
            raise BadUpload(f"{name} is {len(data)} bytes, over the limit of {limits.max_unpacked_bytes} bytes")
        return {"main.py": bytes(data)}
    if name.endswith(".zip"):
        return read_zip(name, data, limits)
    raise BadUpload(f"a bot is a .py file or a .zip with main.py, got {name!r}")


def zip_folder(folder: Path) -> bytes:
    """A bot's folder as the zip its author would upload (manage.py try_bot DIR): every file, hidden ones and
    build outputs left out (`.git`, a built `bot`, class files: a folder is read as its sources are)."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in sorted(folder.rglob("*")):
            parts = path.relative_to(folder).parts
            if path.is_file() and not any(p.startswith(".") for p in parts) and _is_source(parts[-1]):
                archive.write(path, "/".join(parts))
    return out.getvalue()


def _is_source(name: str) -> bool:
    suffix = PurePosixPath(name).suffix.lstrip(".").lower()
    return name in ALLOWED_BARE_NAMES or suffix in ALLOWED_EXTENSIONS


def normalize_filename(filename: str) -> str:
    """The upload's base name, safe to store and show: no folders, a lower-case extension, [A-Za-z0-9._-] only."""
    base = re.split(r"[\\/]", str(filename or ""))[-1].strip()
    stem, dot, ext = base.rpartition(".")
    if not dot:
        stem, ext = base, ""
    stem = _SAFE_FILENAME.sub("_", stem).strip("._")[:100] or "bot"
    ext = _SAFE_FILENAME.sub("", ext).lower()[:10]
    return f"{stem}.{ext}" if ext else stem


def _shown(upload: str, path: str) -> str:
    """How a file is named in the log: the upload's own name for a single .py, else its path in the zip."""
    return upload if upload.endswith(".py") else path


# --- compiling -----------------------------------------------------------------------------------------------------


# CPython's compiler can take hundreds of times a source's size (an 8 MiB list literal, 150 KB zipped: 2.8 GiB and 6 s
# of CPU), so an upload's files are compiled in a child process with at most this much memory and CPU, not in the web
# process; what does not compile within them is refused as code that does not compile.
COMPILE_MEMORY = 1024 * MiB
COMPILE_CPU_S = 10
_COMPILE = """
import json, resource, sys
memory, cpu_s = int(sys.argv[1]), int(sys.argv[2])
resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
resource.setrlimit(resource.RLIMIT_CPU, (cpu_s, cpu_s))
for path, text in json.load(sys.stdin):
    try:
        compile(text, path, "exec", dont_inherit=True)
        found = None
    except SyntaxError as exc:
        found = [type(exc).__name__, exc.msg, exc.lineno, exc.offset, exc.text]
    except (ValueError, MemoryError, RecursionError) as exc:  # null bytes; a source too big or deep to compile
        found = [type(exc).__name__, str(exc)[:200] or "the source is too large to compile"]
    print(json.dumps(found), flush=True)
"""
_SYNTAX_ERRORS = {cls.__name__: cls for cls in (SyntaxError, IndentationError, TabError)}


def compile_errors(sources: list[tuple[str, bytes]]) -> list[str]:
    """Per (path, content): '' when it is UTF-8 Python that compiles, else the error the author reads. Never runs the
    code; compiles in one child process within COMPILE_MEMORY and COMPILE_CPU_S.

    Raises BadUpload when a content is not UTF-8 text: that is a malformed file, not a programming error.
    """
    texts = [(path, _utf8(path, content)) for path, content in sources]
    if not texts:
        return []
    try:
        out = subprocess.run([sys.executable, "-I", "-S", "-c", _COMPILE, str(COMPILE_MEMORY), str(COMPILE_CPU_S)],
                             input=json.dumps(texts).encode(), capture_output=True, timeout=COMPILE_CPU_S * 3,
                             check=False).stdout
    except subprocess.TimeoutExpired as exc:  # a host too busy to give it its CPU: what it answered stands
        out = exc.stdout or b""
    answers = [json.loads(line) for line in out.decode().splitlines()]
    limits = f"within {COMPILE_MEMORY // MiB} MiB and {COMPILE_CPU_S} s of CPU"
    errors = []
    for index, (path, _) in enumerate(texts):
        found = answers[index] if index < len(answers) else None
        if index == len(answers):  # the child was stopped by a limit compiling this one (the rest were not tried)
            errors.append(f"{path}: it does not compile {limits}")
        elif not found:
            errors.append("")
        elif found[0] in _SYNTAX_ERRORS:
            kind, msg, lineno, offset, text = found
            errors.append(format_syntax_error(path, _SYNTAX_ERRORS[kind](msg, (path, lineno, offset, text))))
        else:
            errors.append(f"{path}: {found[0]}: {found[1]}; it does not compile {limits}")
    return errors


def _utf8(path: str, content: bytes) -> str:
    try:
        return content.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = content[: exc.start].count(b"\n") + 1
        raise BadUpload(f"{path} is not UTF-8 text: byte {content[exc.start]:#04x} at line {line} "
                        f"(offset {exc.start}) is invalid; save it as UTF-8") from None


def format_syntax_error(path: str, exc: SyntaxError) -> str:
    """'main.py, line 3, column 5: SyntaxError: invalid syntax' plus the offending line and a caret."""
    kind = type(exc).__name__  # SyntaxError, IndentationError or TabError
    where = f"line {exc.lineno}" + (f", column {exc.offset}" if exc.offset else "")
    message = f"{path}, {where}: {kind}: {exc.msg}"
    source_line = (exc.text or "").rstrip("\n")
    if source_line.strip():
        indent = len(source_line) - len(source_line.lstrip())
        message += f"\n    {source_line.strip()}"
        if exc.offset and exc.offset > indent:
            message += "\n    " + " " * (exc.offset - 1 - indent) + "^"
    return message


# --- zip archives --------------------------------------------------------------------------------------------------


def read_zip(name: str, data: bytes, limits: UploadLimits) -> dict[str, bytes]:
    """The files of a bot zip by their path in the bot's folder. Raises BadUpload for anything unsafe or odd."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        entries = archive.infolist()
    except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, EOFError) as exc:
        raise BadUpload(f"{name} is not a valid zip file: {exc}") from None
    with archive:
        if len(entries) > limits.max_entries:
            raise BadUpload(f"{name} holds {len(entries)} entries, over the limit of {limits.max_entries}")
        files = [e for e in entries if not e.is_dir()]
        for entry in entries:
            check_entry(name, entry, limits)
        paths = check_paths(name, entries)
        check_declared_total(name, files, limits)
        root = bot_root(name, [paths[e.filename] for e in files])
        contents = read_entries(name, archive, files, limits)
    return {"/".join(paths[e.filename][root:]): contents[e.filename] for e in files}


def check_entry(name: str, entry: zipfile.ZipInfo, limits: UploadLimits) -> None:
    """One entry on its own: a plain file or folder, not encrypted, a known method, a sane compression ratio."""
    mode = entry.external_attr >> 16
    kind = stat.S_IFMT(mode)
    if kind == stat.S_IFLNK:
        raise BadUpload(f"{name}: {entry.filename!r} is a symbolic link; links are not allowed, include the file")
    if mode and kind not in (0, stat.S_IFREG, stat.S_IFDIR):
        raise BadUpload(f"{name}: {entry.filename!r} is not a regular file or folder (mode {mode:#o})")
    if entry.flag_bits & 0x1:
        raise BadUpload(f"{name}: {entry.filename!r} is encrypted; upload an archive without a password")
    if entry.compress_type not in ZIP_METHODS:
        raise BadUpload(f"{name}: {entry.filename!r} uses compression method {entry.compress_type}; "
                        f"use one of {', '.join(ZIP_METHODS.values())}")
    if entry.file_size > limits.ratio_floor and entry.file_size > limits.max_ratio * max(entry.compress_size, 1):
        ratio = entry.file_size // max(entry.compress_size, 1)
        raise BadUpload(f"{name}: {entry.filename!r} expands {ratio}x ({entry.compress_size} to {entry.file_size} "
                        f"bytes), over the limit of {limits.max_ratio}x: this looks like a zip bomb")


def check_paths(name: str, entries: list[zipfile.ZipInfo]) -> dict[str, tuple[str, ...]]:
    """Each entry's path as parts; refuses unsafe, odd, duplicate and file-versus-folder clashing names."""
    paths: dict[str, tuple[str, ...]] = {}
    seen: dict[tuple[str, ...], str] = {}
    for entry in entries:
        parts = safe_parts(name, entry.filename)
        if parts in seen:
            raise BadUpload(f"{name}: {entry.filename!r} appears twice")
        seen[parts] = entry.filename
        paths[entry.filename] = parts
        if not entry.is_dir():
            check_extension(name, entry.filename, parts[-1])
    folders = {parts[:i] for parts in seen for i in range(1, len(parts))}
    for entry in entries:
        if not entry.is_dir() and paths[entry.filename] in folders:
            raise BadUpload(f"{name}: {entry.filename!r} is both a file and a folder")
    return paths


def safe_parts(name: str, member: str) -> tuple[str, ...]:
    """A relative path inside the bot's folder, or BadUpload naming what is wrong with it."""
    if member.startswith("/") or re.match(r"^[A-Za-z]:", member):
        raise BadUpload(f"{name}: {member!r} is an absolute path; paths must be relative to the archive")
    if "\\" in member:
        raise BadUpload(f"{name}: {member!r} contains a backslash; use / between folders")
    if any(ord(c) < 32 or ord(c) == 127 for c in member):
        raise BadUpload(f"{name}: {member!r} contains a control character")
    parts = tuple(member.rstrip("/").split("/"))
    if ".." in parts:
        raise BadUpload(f"{name}: {member!r} climbs out of the archive with '..'")
    if not member.rstrip("/") or any(p in ("", ".") for p in parts):
        raise BadUpload(f"{name}: {member!r} has an empty or '.' path component")
    if parts[0] == "__MACOSX":
        raise BadUpload(f"{name}: {member!r} is macOS metadata; zip without it (e.g. `zip -r -X bot.zip mybot`)")
    return check_lengths(name, member, parts)


def check_lengths(name: str, member: str, parts: tuple[str, ...]) -> tuple[str, ...]:
    """Names the sandbox's file system could not create are refused here, not at validation."""
    long = next((p for p in parts if len(p.encode()) > NAME_MAX), None)
    if long is not None:
        raise BadUpload(f"{name}: {member[:60]!r}... has a name of {len(long.encode())} bytes; at most {NAME_MAX} "
                        f"bytes per file or folder name")
    if len(member.encode()) > PATH_MAX:
        raise BadUpload(f"{name}: {member[:60]!r}... is a path of {len(member.encode())} bytes; at most {PATH_MAX}")
    return parts


def check_extension(name: str, member: str, basename: str) -> None:
    suffix = PurePosixPath(basename).suffix.lstrip(".")
    if basename in ALLOWED_BARE_NAMES or (suffix and suffix.lower() in ALLOWED_EXTENSIONS):
        return
    allowed = ", ".join(f".{e}" for e in sorted(ALLOWED_EXTENSIONS))
    raise BadUpload(f"{name}: {member!r} has an unknown file type; a bot zip may hold {allowed}")


def check_declared_total(name: str, files: list[zipfile.ZipInfo], limits: UploadLimits) -> None:
    declared = sum(e.file_size for e in files)
    if declared > limits.max_unpacked_bytes:
        raise BadUpload(f"{name} unpacks to {declared} bytes, over the limit of {limits.max_unpacked_bytes} bytes")


def bot_root(name: str, paths: list[tuple[str, ...]]) -> int:
    """How many leading folders to strip: 0 for main.py at the root, 1 for one top folder holding every file."""
    if ("main.py",) in paths or (MANIFEST,) in paths:
        return 0
    tops = {p[0] for p in paths}
    if len(tops) == 1 and all(len(p) > 1 for p in paths) and any(p[1:] in (("main.py",), (MANIFEST,))
                                                                 for p in paths):
        return 1
    raise BadUpload(f"{name} has no main.py nor {MANIFEST}: put main.py (or, for another language, {MANIFEST}) at "
                    "the root of the zip, or zip one folder that holds it and all the other files")


def read_entries(name: str, archive: zipfile.ZipFile, files: list[zipfile.ZipInfo],
                 limits: UploadLimits) -> dict[str, bytes]:
    """Every file's bytes, counting what is really inflated: a lying header cannot push past the caps."""
    budget = limits.max_unpacked_bytes
    contents = {}
    for entry in files:
        data = read_capped(name, archive, entry, budget, limits.max_unpacked_bytes)
        budget -= len(data)
        contents[entry.filename] = data
    return contents


def read_capped(name: str, archive: zipfile.ZipFile, entry: zipfile.ZipInfo, budget: int, cap: int) -> bytes:
    chunks, total = [], 0
    try:
        with archive.open(entry) as stream:
            while chunk := stream.read(_READ_CHUNK):
                total += len(chunk)
                if total > budget:
                    raise BadUpload(f"{name} unpacks to more than the limit of {cap} bytes (stopped reading at "
                                    f"{entry.filename!r}): this looks like a zip bomb")
                if total > entry.file_size:
                    raise BadUpload(f"{name}: {entry.filename!r} inflates past its declared size of "
                                    f"{entry.file_size} bytes")
                chunks.append(chunk)
    except (zipfile.BadZipFile, zlib.error, lzma.LZMAError, EOFError, OSError, NotImplementedError, RuntimeError,
            ValueError) as exc:
        raise BadUpload(f"{name}: {entry.filename!r} cannot be read ({exc}): the archive is corrupt or lies about "
                        "its sizes") from None
    return b"".join(chunks)
