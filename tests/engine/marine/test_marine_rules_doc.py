"""docs/rules/marine.md and the engine name the same project-defined rules: every "[ours: name]" mark in the doc is a
key of engine.marine.PROJECT_RULES, every key is marked in the doc, and no project rule goes unnamed."""

from __future__ import annotations

import re
from pathlib import Path

from engine.marine import PROJECT_RULES

DOC = Path(__file__).resolve().parents[3] / "docs" / "rules" / "marine.md"
MARK = re.compile(r"\[ours(?::\s*([a-z_]+))?\]")


def marks() -> list[str | None]:
    return [m.group(1) for m in MARK.finditer(DOC.read_text(encoding="utf-8"))]


def test_every_rule_the_doc_marks_as_ours_is_in_project_rules() -> None:
    unknown = sorted({name for name in marks() if name is not None} - set(PROJECT_RULES))
    assert not unknown, f"marked [ours: ...] in {DOC.name} but not in engine.marine.PROJECT_RULES: {unknown}"


def test_every_project_rule_is_marked_in_the_doc() -> None:
    unmarked = sorted(set(PROJECT_RULES) - {name for name in marks() if name is not None})
    assert not unmarked, f"engine.marine.PROJECT_RULES not marked [ours: name] in {DOC.name}: {unmarked}"


def test_every_ours_mark_on_a_rule_carries_its_name() -> None:
    # bare "[ours]" only in prose that explains the mark, never on a rule
    text = DOC.read_text(encoding="utf-8")
    bare = [text[max(0, m.start() - 60):m.end()] for m in MARK.finditer(text) if m.group(1) is None]
    assert all("marked [ours]" in context for context in bare), bare
    assert "**project-defined**" not in text, "use the one mark, [ours: name]"

