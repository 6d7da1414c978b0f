"""How each language's bot runs in its seat (docs/bots.md, "Languages"): the runtime, what it needs bound
read-only, its flags and its memory rlimit.

Every runtime gets the system's shared libraries (the dirs the C library and the runtime load from) and no more:
- Python: its interpreter and stdlib (workers/sandbox/bwrap.py `find_interpreter`), as always;
- JavaScript: /usr/bin/node and the libraries it links;
- C++ and Rust: nothing but the libraries: the bot's own binary, built at validation, is in /bot;
- Java: the JDK's home (/usr/lib/jvm/<jdk>: the JVM's own libraries, its `modules` image and its `conf`) and the
  /etc dir its `conf` links into (security and logging properties); the JVM reads them all as it starts.

The seat's other limits are the sandbox's (workers/sandbox/config.py SandboxConfig) for every language, but the address
space: V8 and the JVM reserve address space they never touch (code ranges, heaps), so their RLIMIT_AS is raised, and
the seat's control group caps what they really use (`group_memory_bytes`, the same for every language).
"""

from __future__ import annotations

import functools
import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from tournaments.languages import LANGUAGES, PYTHON, Manifest
from workers.sandbox.bwrap import (
    BOT_DIR,
    PYTHON_FLAGS,
    Interpreter,
    SandboxUnavailable,
    _outermost,
    _top_level_links,
    find_interpreter,
)

MiB = 1 << 20
# The JVM in a seat: the serial collector and C1 only (fewer threads: the seat's RLIMIT_NPROC counts them), a heap
# and metaspace within the seat's memory, no perf data file (/tmp is the bot's).
JVM_FLAGS = ("-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-XX:CICompilerCount=1", "-Xss1m", "-Xmx256m",
             "-XX:MaxMetaspaceSize=64m", "-XX:CompressedClassSpaceSize=32m", "-XX:ReservedCodeCacheSize=32m",
             "-XX:-UsePerfData", "-Xshare:auto")
# Node: V8's background tasks (concurrent compilation and marking) off, so all of a bot's work is on its one thread,
# on its own turn; a heap within the seat's memory.
NODE_FLAGS = ("--max-old-space-size=256", "--single-threaded")
# The extra allowance at hello (never on moves): the SandboxConfig's startup_ms covers Python, Node and a binary;
# the JVM loads and links its classes for about a second more on a busy host (docs/bots.md, "Languages").
JVM_STARTUP_MS = 3000


@dataclass(frozen=True)
class Runtime:
    """A language's program in the seat: argv is (executable, *flags, *args), all of it inside the sandbox."""

    language: str
    interp: Interpreter  # the executable (the runtime, or the bot's binary in /bot) and the host paths it needs
    flags: tuple[str, ...]
    args: tuple[str, ...]


@dataclass(frozen=True)
class RunLimits:
    """Where a language's seat differs from the sandbox's defaults (workers/sandbox/seat.py)."""

    startup_ms: int = 0  # extra allowance at hello (never on moves)
    address_space: int | None = None  # RLIMIT_AS; None keeps the seat's
    # Frozen whenever it waits, from its first reply on: a runtime that works by itself after a reply (the JVM's JIT
    # compiler, GC and periodic tasks; V8's idle-time garbage collection) would be caught computing off its turn for
    # what its author never wrote (docs/bots.md, "The freezer"); frozen, that work runs on its own turn and clock.
    frozen_when_waiting: bool = False


RUN_LIMITS = {"javascript": RunLimits(address_space=8 << 30, frozen_when_waiting=True),
              "java": RunLimits(JVM_STARTUP_MS, 4 << 30, frozen_when_waiting=True)}


def runtime_for(manifest: Manifest, python: str | None = None) -> Runtime:
    """The runtime that runs a bot with this manifest. Raises SandboxUnavailable when this host lacks it."""
    if manifest.language == "python":
        interp = find_interpreter(python)
        return Runtime("python", interp, PYTHON_FLAGS, (f"{BOT_DIR}/main.py",))
    program, *args = manifest.run
    if program.startswith("./"):  # the bot's own binary (tournaments/languages.py allows nothing else)
        libs = system_libraries()
        interp = Interpreter(f"{BOT_DIR}/{program[2:]}", (0, 0), libs.binds, libs.symlinks)
        return Runtime(manifest.language, interp, (), tuple(args))
    if manifest.language == "javascript":
        return Runtime("javascript", node(), NODE_FLAGS, tuple(args))
    if manifest.language == "java":
        return Runtime("java", jvm(), JVM_FLAGS, tuple(args))
    raise SandboxUnavailable(f"no runtime for {manifest.language} programs named {program!r}")


def _linked(executable: str) -> list[str]:
    """The shared libraries an executable loads, by ldd."""
    done = subprocess.run(["ldd", executable], capture_output=True, text=True, timeout=30, check=False)
    return re.findall(r"(/\S+\.so[^\s]*)", done.stdout)


def _interp(executable: str, extra: list[str]) -> Interpreter:
    libs = {os.path.dirname(os.path.realpath(lib)) for lib in _linked(executable)}
    libs.update(p for p in ("/usr/lib64",) if os.path.isdir(p) and not os.path.islink(p))
    binds, symlinks = _top_level_links(sorted({*libs, *extra}))
    return Interpreter(executable, (0, 0), tuple(_outermost(binds)), tuple(symlinks))


@functools.lru_cache(maxsize=1)
def system_libraries() -> Interpreter:
    """The C and C++ libraries a built binary loads (libc, libm, libstdc++, libgcc_s) and the loader's links."""
    return _interp("/bin/sh", [])


def _which(name: str, package: str) -> str:
    found = shutil.which(name, path="/usr/bin:/bin")
    if found is None:
        raise SandboxUnavailable(f"{name} is not installed (Debian package {package}; see scripts/sysdeps.sh)")
    return os.path.realpath(found)


@functools.lru_cache(maxsize=1)
def node() -> Interpreter:
    return _interp(_which("node", "nodejs"), [_which("node", "nodejs")])


@functools.lru_cache(maxsize=1)
def jvm() -> Interpreter:
    """The java launcher, its JDK home and the /etc dirs its conf links into."""
    java = _which("java", "default-jdk-headless")
    home = Path(java).parent.parent
    linked = {os.path.dirname(os.path.realpath(p)) for p in home.rglob("*") if p.is_symlink()}
    outside = [d for d in linked if not d.startswith(str(home)) and d.startswith("/etc/") and os.path.isdir(d)]
    return _interp(java, [str(home), *_outermost(outside)])


# --- what built or runs a version: the toolchain line of the version page and the API -----------------------------

TOOLCHAIN_COMMANDS = {
    "python": (None, "--version"),
    "javascript": ("node", "--version"),
    "cpp": ("g++", "--version"),
    "rust": ("rustc", "--version"),
    "java": ("javac", "-version"),
}


@functools.lru_cache(maxsize=8)
def toolchain(language: str) -> str:
    """'g++ (Debian 12.2.0-14) 12.2.0', 'node v20.20.2', ...: the first line its tool prints about itself."""
    name, flag = TOOLCHAIN_COMMANDS[language]
    program = find_interpreter().executable if name is None else shutil.which(name, path="/usr/bin:/bin")
    if program is None:
        return f"{name}: not installed"
    done = subprocess.run([program, flag], capture_output=True, text=True, timeout=30, check=False)
    line = (done.stdout or done.stderr).strip().splitlines()
    version = line[0] if line else "unknown version"
    return version if version.split()[0] in (name, "Python") else f"{name} {version}"


__all__ = ["LANGUAGES", "PYTHON", "Runtime", "runtime_for", "toolchain"]
