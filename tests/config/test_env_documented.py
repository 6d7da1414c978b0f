"""Every environment variable Ludus reads is in `.env.example` and in the README's table of variables.

The names come from the source, not from a list kept by hand: every `env_*("NAME", ...)` call (config/env.py's
strict readers) and every `os.environ.get("NAME")` / `os.environ["NAME"]` / `os.getenv("NAME")` in the packages.
A regular expression rather than the AST: it runs at collection, in every xdist worker.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# not ludus_client: its LUDUS_URL... are in docs/api.md
PACKAGES = ("config", "tournaments", "replays", "workers", "engine")
# Read by the tools around Ludus, not settings an operator sets: Django's own, pytest's, this process's.
NOT_SETTINGS = {"DJANGO_SETTINGS_MODULE", "DJANGO_ALLOW_ASYNC_UNSAFE", "PYTEST_XDIST_WORKER"}


# env_str("NAME", ...), env_int("NAME", ...), os.environ.get("NAME"), os.environ.setdefault("NAME", ...), os.getenv
READ = re.compile(r"""(?:\benv_\w+|\benviron\.get|\benviron\.setdefault|\bgetenv)\(\s*["']([A-Z][A-Z0-9_]*)["']""")
SUBSCRIPT = re.compile(r"""\benviron\[\s*["']([A-Z][A-Z0-9_]*)["']\s*\]""")  # os.environ["NAME"]


def names_read(source: str) -> set[str]:
    return set(READ.findall(source)) | set(SUBSCRIPT.findall(source))


@functools.cache  # read once, for the two parametrized tests
def variables_read() -> frozenset[str]:
    names: set[str] = set()
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            if path.name == "testing.py":  # the pytest plugin sets test defaults; it reads nothing of its own
                continue
            names |= names_read(path.read_text())
    return frozenset(names - NOT_SETTINGS)


def readme_table() -> str:
    text = (ROOT / "README.md").read_text()
    return text[text.index("## Configuration"):text.index("\n## ", text.index("## Configuration") + 1)]


def test_the_source_scan_finds_the_settings_it_must() -> None:
    found = variables_read()
    assert {"SECRET_KEY", "DATABASE_URL", "LUDUS_SANDBOX", "LUDUS_SANDBOX_PYTHON", "CSRF_COOKIE_SECURE"} <= found
    assert "PYTEST_XDIST_WORKER" not in found


@pytest.mark.parametrize("name", sorted(variables_read()))
def test_each_variable_is_in_env_example(name: str) -> None:
    text = (ROOT / ".env.example").read_text()
    assert re.search(rf"^#? ?{name}=", text, re.MULTILINE), f"{name} is read by Ludus but missing from .env.example"


@pytest.mark.parametrize("name", sorted(variables_read()))
def test_each_variable_is_in_the_readme_table(name: str) -> None:
    assert re.search(rf"^\| [^|]*`{name}`", readme_table(), re.MULTILINE), (
        f"{name} is read by Ludus but has no row in the README's table of variables")
