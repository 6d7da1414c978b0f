"""Every environment variable Ludus reads is in `.env.example` and in the README's table of variables.

The names come from the source, not from a list kept by hand: every `env_*("NAME", ...)` call (tournaments/env.py's
strict readers) and every `os.environ.get("NAME")` / `os.environ["NAME"]` / `os.getenv("NAME")` in the packages.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("tournaments", "replays", "workers", "engine")
# Read by the tools around Ludus, not settings an operator sets: Django's own, pytest's, this process's.
NOT_SETTINGS = {"DJANGO_SETTINGS_MODULE", "DJANGO_ALLOW_ASYNC_UNSAFE", "PYTEST_XDIST_WORKER"}


def literal_name(node: ast.expr) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def is_environ(node: ast.expr) -> bool:
    return isinstance(node, ast.Attribute) and node.attr == "environ"


def names_read(tree: ast.AST) -> set[str]:
    """Variable names read in this module: env_* helpers, os.environ.get / [] / setdefault, os.getenv."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and node.args:
            func = node.func
            helper = isinstance(func, ast.Name) and func.id.startswith("env_")
            environ = isinstance(func, ast.Attribute) and (
                (func.attr in ("get", "setdefault") and is_environ(func.value)) or func.attr == "getenv")
            if helper or environ:
                found.add(literal_name(node.args[0]))
        elif isinstance(node, ast.Subscript) and is_environ(node.value):
            found.add(literal_name(node.slice))
    return {name for name in found if name} - NOT_SETTINGS


def variables_read() -> set[str]:
    names: set[str] = set()
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            if path.name != "testing.py":  # the pytest plugin sets test defaults; it reads nothing of its own
                names |= names_read(ast.parse(path.read_text(), str(path)))
    return names


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
