"""The languages a bot may be written in, and its manifest `ludus.toml` (docs/bots.md, "Languages"): pure, no
database, no processes.

An upload with no manifest is Python, as it always was (`main.py`). A zip whose root holds `ludus.toml` names its
language and, for a compiled one, its build:

    language = "cpp"
    build = "g++ -O2 -std=c++20 -o bot main.cpp"   # optional: each compiled language has a default
    run = "./bot"                                  # optional: each language has a default

The build runs once, at validation, in a sandbox of its own (workers/sandbox/build.py); the run command's program is
either the language's runtime (`node`, `java`, `python3`) or a file of the bot (`./bot`), never anything else of the
host. `read_manifest` refuses anything else with a message for the author.
"""

from __future__ import annotations

import shlex
import tomllib
from dataclasses import dataclass

from engine.protocol import brief

MANIFEST = "ludus.toml"


class BadManifest(ValueError):
    """A manifest that cannot be used; the message names the key and the problem."""


@dataclass(frozen=True)
class Language:
    name: str  # as the manifest spells it
    title: str
    runtime: str  # the program name a run command may start with ("" : the bot's own binary, `./bot`)
    build: str  # the default build command ("" : nothing to build)
    run: str  # the default run command
    sources: tuple[str, ...]  # file extensions an upload of this language may hold, besides the common ones


LANGUAGES: dict[str, Language] = {lang.name: lang for lang in (
    Language("python", "Python", "python3", "", "python3 main.py", ("py", "pyi")),
    Language("javascript", "JavaScript (Node.js)", "node", "", "node main.js", ("js", "mjs", "cjs")),
    Language("cpp", "C++ (g++)", "", "g++ -O2 -std=c++20 -o bot main.cpp", "./bot",
             ("cpp", "cc", "cxx", "h", "hpp", "hh", "hxx")),
    Language("rust", "Rust (rustc)", "", "rustc -O -C strip=symbols --edition 2021 -o bot main.rs", "./bot",
             ("rs",)),
    Language("java", "Java (OpenJDK)", "java", "javac -d . Main.java", "java -cp . Main", ("java",)),
)}
SOURCE_EXTENSIONS = frozenset(ext for lang in LANGUAGES.values() for ext in lang.sources)


@dataclass(frozen=True)
class Manifest:
    language: str
    build: str  # "" : nothing to build
    run: tuple[str, ...]  # the run command, split as a shell would (no shell runs it)

    @property
    def compiled(self) -> bool:
        return bool(self.build)


PYTHON = Manifest("python", "", ("python3", "main.py"))
MAX_COMMAND = 1000  # characters of a build or run command


def read_manifest(text: bytes) -> Manifest:
    """The manifest's language, build and run command, defaults filled in. Raises BadManifest."""
    try:
        data = tomllib.loads(text.decode("utf-8-sig"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:  # TOMLDecodeError is a ValueError; so is a number
        raise BadManifest(f"{MANIFEST} is not valid TOML: {str(exc)[:200]}") from None  # past int()'s digits
    unknown = sorted(set(data) - {"language", "build", "run"})
    if unknown:
        raise BadManifest(f"{MANIFEST}: unknown key(s) {', '.join(unknown)}; the keys are language, build and run")
    name = data.get("language")
    if not isinstance(name, str) or name not in LANGUAGES:
        raise BadManifest(f"{MANIFEST}: language must be one of {', '.join(LANGUAGES)}, got {brief(name)}")
    lang = LANGUAGES[name]
    build = _command(data, "build", lang.build)
    if build and not lang.build:
        raise BadManifest(f"{MANIFEST}: {lang.title} runs from its source; remove the build command")
    run = _command(data, "run", lang.run)
    try:
        argv = tuple(shlex.split(run))
    except ValueError as exc:
        raise BadManifest(f"{MANIFEST}: run {run!r} cannot be split into words: {exc}") from None
    program = argv[0] if argv else ""
    allowed = f"{lang.runtime!r} or " if lang.runtime else ""
    if not (program == lang.runtime and lang.runtime) and not _bot_file(program):
        raise BadManifest(f"{MANIFEST}: run must start with {allowed}a file of the bot such as './bot', "
                          f"got {program!r}")
    return Manifest(name, build, argv)


def _command(data: dict[str, object], key: str, default: str) -> str:
    value = data.get(key, default)
    if not isinstance(value, str) or len(value) > MAX_COMMAND or (key == "run" and not value.strip()):
        raise BadManifest(f"{MANIFEST}: {key} must be a command of at most {MAX_COMMAND} characters, got "
                          f"{brief(value)}")
    return value.strip()


def _bot_file(program: str) -> bool:
    """'./bot' or './bin/bot': a path inside the bot's folder."""
    parts = program.split("/")
    return program.startswith("./") and len(program) > 2 and ".." not in parts and "" not in parts[1:]
