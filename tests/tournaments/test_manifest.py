"""ludus.toml, an upload's manifest (tournaments/languages.py): every bad manifest is refused at upload with a
message that names the problem; no manifest is Python, as before."""

from __future__ import annotations

import pytest
from testkit import zipped

from tournaments.languages import PYTHON, Manifest, read_manifest
from tournaments.uploads import BadUpload, check_upload


def test_no_manifest_is_python() -> None:
    assert check_upload("bot.py", b"x = 1\n").manifest == PYTHON
    assert check_upload("bot.zip", zipped({"main.py": b"x = 1\n"})).manifest == PYTHON


def test_defaults_fill_in_build_and_run() -> None:
    assert read_manifest(b'language = "cpp"\n') == Manifest("cpp", "g++ -O2 -std=c++20 -o bot main.cpp", ("./bot",))
    assert read_manifest(b'language = "javascript"\n') == Manifest("javascript", "", ("node", "main.js"))
    java = read_manifest(b'language = "java"\nrun = "java -cp . Main"\n')
    assert java.compiled and java.run == ("java", "-cp", ".", "Main")


def test_a_zipped_folder_with_a_manifest_is_a_bot_of_its_language() -> None:
    checked = check_upload("bot.zip", zipped({"kit/ludus.toml": b'language = "cpp"\n', "kit/main.cpp": b"int main(){}",
                                              "kit/ludus.hpp": b""}))
    assert checked.manifest.language == "cpp" and checked.files == ("ludus.hpp", "ludus.toml", "main.cpp")


def test_other_languages_sources_are_not_compiled_as_python() -> None:
    checked = check_upload("bot.zip", zipped({"ludus.toml": b'language = "javascript"\n', "main.js": b"x(",
                                              "tool.py": b"def (:\n"}))
    assert checked.compiles()


@pytest.mark.parametrize(("manifest", "message"), [
    (b"language = \n", "is not valid TOML"),
    (b'language = "cobol"\n', "language must be one of python, javascript, cpp, rust, java, got 'cobol'"),
    (b'run = "./bot"\n', "language must be one of"),
    (b'language = "cpp"\nflags = "-O3"\n', "unknown key(s) flags"),
    (b'language = "cpp"\nrun = "/usr/bin/curl x"\n', "run must start with a file of the bot such as './bot'"),
    (b'language = "cpp"\nrun = "./../bot"\n', "run must start with"),
    (b'language = "javascript"\nrun = "bash -c x"\n', "run must start with 'node' or a file of the bot"),
    (b'language = "javascript"\nbuild = "npm install"\n', "runs from its source; remove the build command"),
    (b'language = "cpp"\nbuild = 3\n', "build must be a command of at most 1000 characters, got 3"),
    (b'language = "cpp"\nrun = "./bot \'x"\n', "cannot be split into words"),
    (b'language = "python"\nrun = "python3 other.py"\n', "a Python bot runs main.py"),
])
def test_a_bad_manifest_is_refused_with_its_reason(manifest: bytes, message: str) -> None:
    with pytest.raises(BadUpload) as refused:
        check_upload("bot.zip", zipped({"ludus.toml": manifest, "main.py": b"", "main.cpp": b""}))
    assert message in str(refused.value)


def test_binaries_are_not_uploaded_but_built() -> None:
    with pytest.raises(BadUpload, match="unknown file type"):
        check_upload("bot.zip", zipped({"ludus.toml": b'language = "cpp"\n', "bot": b"\x7fELF"}))
