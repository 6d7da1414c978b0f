"""The upload checks (tournaments/uploads.py): pure functions, no database, no processes."""

from __future__ import annotations

import io
import re
import stat
import struct
import zipfile
from pathlib import Path

import pytest

from tournaments import uploads
from tournaments.uploads import BadUpload, UploadLimits, check_upload, normalize_filename

FIXTURES = Path(__file__).resolve().parent / "fixtures"
EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "bots" / "evolution_bot.py"
LIMITS = UploadLimits(max_bytes=1 << 20, max_unpacked_bytes=8 << 20, max_entries=50, max_ratio=100)


def make_zip(files: dict[str, bytes], method: int = zipfile.ZIP_DEFLATED) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", method) as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def zip_with_entry(name: str, data: bytes, mode: int, extra: dict[str, bytes] | None = None) -> bytes:
    """A zip holding main.py plus one entry whose unix mode is `mode` (a link, a device...)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("main.py", b"x = 1\n")
        for other, content in (extra or {}).items():
            archive.writestr(other, content)
        info = zipfile.ZipInfo(name)
        info.create_system = 3
        info.external_attr = mode << 16
        archive.writestr(info, data)
    return buffer.getvalue()


# --- good uploads ------------------------------------------------------------------------------------------------


def test_it_accepts_a_py_file_and_normalizes_the_record() -> None:
    data = EXAMPLE.read_bytes()
    checked = check_upload("evolution_bot.py", data, LIMITS)
    assert checked.filename == "evolution_bot.py"
    assert checked.files == ("main.py",) and checked.compiles()
    assert checked.size == len(data) and len(checked.sha256) == 64 and checked.data == data


def test_it_accepts_a_zip_with_main_py_at_its_root() -> None:
    data = make_zip({"main.py": b"import helper\n", "helper.py": b"X = 1\n", "data/weights.json": b"{}"})
    checked = check_upload("bot.zip", data, LIMITS)
    assert checked.files == ("data/weights.json", "helper.py", "main.py") and checked.compiles()


def test_it_accepts_a_zipped_folder_holding_main_py_and_strips_that_folder() -> None:
    data = make_zip({"mybot/": b"", "mybot/main.py": b"x = 1\n", "mybot/lib/util.py": b"y = 2\n"})
    assert check_upload("mybot.zip", data, LIMITS).files == ("lib/util.py", "main.py")


@pytest.mark.parametrize(("given", "stored"), [
    ("bot.py", "bot.py"),
    ("My Bot.PY", "My_Bot.py"),
    ("C:\\Users\\ann\\bot.py", "bot.py"),
    ("../../etc/bot.zip", "bot.zip"),
    ("..py", "bot.py"),
])
def test_it_stores_a_safe_base_name(given: str, stored: str) -> None:
    assert normalize_filename(given) == stored


# --- syntax errors: kept for a rejected version, with a log the author can read -----------------------------------


def test_a_syntax_error_is_reported_with_file_line_and_column() -> None:
    checked = check_upload("bot.py", b"import ludus\n\ndef act(view, decision:\n    return 0\n", LIMITS)
    assert not checked.compiles()
    [error] = checked.syntax_errors
    assert error.startswith("bot.py, line 3, column 8: SyntaxError:")
    assert "def act(view, decision:" in error and "^" in error
    assert "SyntaxError" in checked.rejection_log() and "line 3" in checked.rejection_log()


def test_every_file_of_a_zip_is_compiled() -> None:
    data = make_zip({"main.py": b"import lib\n", "lib.py": b"if True:\nreturn 1\n"})
    [error] = check_upload("bot.zip", data, LIMITS).syntax_errors
    assert error.startswith("lib.py, line 2") and "IndentationError" in error


def test_null_bytes_are_a_syntax_error_not_a_crash() -> None:
    assert check_upload("bot.py", b"x = 1\x00\n", LIMITS).syntax_errors


def test_a_file_the_compiler_dies_on_is_the_one_named(monkeypatch: pytest.MonkeyPatch) -> None:
    """The compiling child stopped by a limit (here: it answers for one file, then exits) names the file it was on,
    not one it had passed."""
    answers_one = "import json, sys\nprint(json.dumps(None), flush=True)\nsys.exit(137)\n"
    monkeypatch.setattr(uploads, "_COMPILE", answers_one)
    data = make_zip({"main.py": b"import lib\n", "lib.py": b"x = 1\n", "more.py": b"y = 2\n"})
    [error] = check_upload("bot.zip", data, LIMITS).syntax_errors
    assert error == "lib.py: it does not compile within 1024 MiB and 10 s of CPU", error  # the second, in zip order


# --- malformed uploads: refused with a message naming the problem ------------------------------------------------

BAD_UPLOADS = [
    ("empty", "bot.py", b"", "is empty"),
    ("unknown upload type", "bot.txt", b"print(1)", "a .py file or a .zip"),
    ("oversized .py", "bot.py", b"#" * ((1 << 20) + 1), "over the upload limit of 1048576 bytes"),
    ("not UTF-8", "bot.py", b"x = '\xff\xfe'\n", "not UTF-8 text: byte 0xff at line 1"),
    ("not a zip", "bot.zip", b"PK but not really", "not a valid zip file"),
    ("no main.py", "bot.zip", make_zip({"bot.py": b"x = 1\n"}), "has no main.py"),
    ("main.py too deep", "bot.zip", make_zip({"a/b/main.py": b"x = 1\n"}), "has no main.py"),
    ("two top folders", "bot.zip", make_zip({"a/main.py": b"", "b/x.py": b""}), "has no main.py"),
    ("parent traversal", "bot.zip", make_zip({"main.py": b"", "../evil.py": b""}), "'../evil.py' climbs out"),
    ("inner traversal", "bot.zip", make_zip({"main.py": b"", "a/../../evil.py": b""}), "climbs out"),
    ("absolute path", "bot.zip", make_zip({"main.py": b"", "/etc/x": b""}), "'/etc/x' is an absolute path"),
    ("drive path", "bot.zip", make_zip({"main.py": b"", "C:/x.py": b""}), "is an absolute path"),
    ("backslash", "bot.zip", make_zip({"main.py": b"", "a\\..\\..\\x.py": b""}), "contains a backslash"),
    ("dot component", "bot.zip", make_zip({"main.py": b"", "a/./x.py": b""}), "empty or '.' path component"),
    ("file and folder", "bot.zip", make_zip({"main.py": b"", "lib.py": b"", "lib.py/x.py": b""}),
     "is both a file and a folder"),
    ("native code", "bot.zip", make_zip({"main.py": b"", "fast.so": b"\x7fELF"}), "'fast.so' has an unknown file type"),
    ("bytecode", "bot.zip", make_zip({"main.py": b"", "x.pyc": b""}), "unknown file type"),
    ("macOS metadata", "bot.zip", make_zip({"main.py": b"", "__MACOSX/._main.py": b""}), "macOS metadata"),
    ("too many entries", "bot.zip", make_zip({"main.py": b"", **{f"f{i}.py": b"" for i in range(60)}}),
     "holds 61 entries, over the limit of 50"),
    ("non-UTF-8 module in a zip", "bot.zip", make_zip({"main.py": b"", "lib.py": b"\xc3\x28"}), "lib.py is not UTF-8"),
    ("long name", "bot.zip", make_zip({"main.py": b"", "n" * 253 + ".py": b""}),
     "has a name of 256 bytes; at most 255 bytes per file or folder name"),
    ("long folder name", "bot.zip", make_zip({"main.py": b"", "d" * 300 + "/x.py": b""}), "has a name of 300 bytes"),
    ("long multibyte name", "bot.zip", make_zip({"main.py": b"", "é" * 127 + ".py": b""}), "has a name of 257 bytes"),
    ("long path", "bot.zip", make_zip({"main.py": b"", "/".join(["d" * 200] * 6) + "/x.py": b""}),
     "is a path of 1210 bytes; at most 1024"),
]


@pytest.mark.parametrize(("case", "filename", "data", "message"), BAD_UPLOADS, ids=[c[0] for c in BAD_UPLOADS])
def test_it_refuses_a_malformed_upload_naming_the_problem(case: str, filename: str, data: bytes,
                                                          message: str) -> None:
    with pytest.raises(BadUpload, match=re.escape(message)):
        check_upload(filename, data, LIMITS)


def test_it_refuses_duplicate_names() -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive, pytest.warns(UserWarning, match="Duplicate name"):
        archive.writestr("main.py", b"x = 1\n")
        archive.writestr("main.py", b"import os; os.system('evil')\n")
    with pytest.raises(BadUpload, match="'main.py' appears twice"):
        check_upload("bot.zip", buffer.getvalue(), LIMITS)


@pytest.mark.parametrize(("kind", "mode", "message"), [
    ("symlink", stat.S_IFLNK | 0o777, "is a symbolic link"),
    ("char device", stat.S_IFCHR | 0o644, "not a regular file or folder"),
    ("block device", stat.S_IFBLK | 0o644, "not a regular file or folder"),
    ("fifo", stat.S_IFIFO | 0o644, "not a regular file or folder"),
    ("socket", stat.S_IFSOCK | 0o644, "not a regular file or folder"),
])
def test_it_refuses_links_and_special_entries(kind: str, mode: int, message: str) -> None:
    data = zip_with_entry("data.txt", b"/etc/shadow", mode)
    with pytest.raises(BadUpload, match=message):
        check_upload("bot.zip", data, LIMITS)


def test_a_zipped_symlink_to_main_py_is_refused() -> None:
    data = zip_with_entry("link.py", b"/etc/passwd", stat.S_IFLNK | 0o777)
    with pytest.raises(BadUpload, match="'link.py' is a symbolic link"):
        check_upload("bot.zip", data, LIMITS)


def test_an_encrypted_entry_is_refused() -> None:
    data = bytearray(make_zip({"main.py": b"x = 1\n"}))
    # Set the encryption bit in both the local header (offset 6) and the central directory entry (offset 8).
    data[6] |= 0x1
    central = data.rfind(b"PK\x01\x02")
    data[central + 8] |= 0x1
    with pytest.raises(BadUpload, match="encrypted"):
        check_upload("bot.zip", bytes(data), LIMITS)


# --- zip bombs -----------------------------------------------------------------------------------------------------


def test_a_zip_bomb_of_100_mb_of_zeros_is_refused_by_its_ratio_before_reading() -> None:
    data = make_zip({"main.py": b"x = 1\n", "zeros.bin": bytes(100 << 20)})
    assert len(data) < LIMITS.max_bytes  # small on the wire: only the checks stop it
    with pytest.raises(BadUpload, match=r"'zeros.bin' expands \d+x .* zip bomb"):
        check_upload("bomb.zip", data, LIMITS)


def test_a_zip_over_the_total_unpacked_size_is_refused_from_its_declared_sizes() -> None:
    noise = bytes(range(256)) * 4096  # 1 MiB that barely compresses: no ratio alarm
    files = {"main.py": b"x = 1\n", **{f"part{i}.bin": noise for i in range(9)}}
    limits = UploadLimits(max_bytes=32 << 20, max_unpacked_bytes=8 << 20, max_entries=50, max_ratio=100)
    with pytest.raises(BadUpload, match=r"unpacks to \d+ bytes, over the limit of 8388608 bytes"):
        check_upload("big.zip", make_zip(files, zipfile.ZIP_STORED), limits)


def test_a_zip_that_lies_about_its_sizes_is_stopped_while_reading() -> None:
    """Declared sizes say 100 bytes; the stream inflates to 10 MB. Reading stops at the cap, never at the end."""
    data = bytearray(make_zip({"main.py": b"x = 1\n", "lie.txt": b"a" * (10 << 20)}))
    _patch_uncompressed_size(data, "lie.txt", 100)
    with pytest.raises(BadUpload, match="'lie.txt'"):
        check_upload("liar.zip", bytes(data), LIMITS)


def _patch_uncompressed_size(data: bytearray, name: str, size: int) -> None:
    """Rewrite one entry's uncompressed size in its local header and its central directory record."""
    encoded = name.encode()
    local = data.find(b"PK\x03\x04")
    while local >= 0:
        name_len = struct.unpack_from("<H", data, local + 26)[0]
        if data[local + 30: local + 30 + name_len] == encoded:
            struct.pack_into("<I", data, local + 22, size)
        local = data.find(b"PK\x03\x04", local + 4)
    central = data.find(b"PK\x01\x02")
    while central >= 0:
        name_len = struct.unpack_from("<H", data, central + 28)[0]
        if data[central + 46: central + 46 + name_len] == encoded:
            struct.pack_into("<I", data, central + 24, size)
        central = data.find(b"PK\x01\x02", central + 4)
