"""The rules of each game as pages, rendered from docs/rules/ (the files the engine cites): `/rules/<game>/` is the
player's summary (docs/rules/<game>-summary.md: how a round goes, how you score, what is hidden) with the exact
rules' table of contents, and `/rules/<game>/spec/` the exact rules (docs/rules/<game>.md) with the same contents
at the top and an anchor on every section. A game without a summary shows its exact rules at both addresses."""

from __future__ import annotations

import html as entities
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.html import strip_tags
from django.utils.safestring import mark_safe
from markdown_it import MarkdownIt

from engine import list_games

HEADING = re.compile(r"<h([23])>(.*?)</h\1>", re.S)


@dataclass(frozen=True)
class Heading:
    level: int
    anchor: str
    text: str


def slug(text: str) -> str:
    """A heading's anchor as GitHub makes it, so the files' own links (`#the-end-of-the-game`) work here too."""
    return re.sub(r"[^\w\- ]", "", text.strip().lower()).replace(" ", "-")


@lru_cache(maxsize=16)
def _rendered(path: Path, mtime: float) -> tuple[str, tuple[Heading, ...]]:
    # Raw HTML in the file is escaped ("html": False), so the result is safe to mark as such. Wide tables and code
    # blocks scroll sideways on a phone: focusable, so a keyboard can scroll them too.
    html: str = MarkdownIt("commonmark", {"html": False}).enable("table").render(path.read_text(encoding="utf-8"))
    html = html.replace("<table>", '<table tabindex="0">').replace("<pre>", '<pre tabindex="0">')
    headings: list[Heading] = []
    seen: dict[str, int] = {}

    def anchored(match: re.Match[str]) -> str:
        text = entities.unescape(strip_tags(match.group(2)))
        anchor = slug(text)
        count = seen.get(anchor, 0)
        seen[anchor] = count + 1
        anchor = f"{anchor}-{count}" if count else anchor
        headings.append(Heading(int(match.group(1)), anchor, text))
        return f'<h{match.group(1)} id="{anchor}">{match.group(2)}</h{match.group(1)}>'

    return HEADING.sub(anchored, html), tuple(headings)


def render_file(path: Path) -> tuple[str, tuple[Heading, ...]]:
    return _rendered(path, path.stat().st_mtime)


def rules(request: HttpRequest, game: str, spec: bool = False) -> HttpResponse:
    folder = Path(settings.BASE_DIR) / "docs" / "rules"
    path, summary = folder / f"{game}.md", folder / f"{game}-summary.md"
    names = {str(g["name"]): str(g.get("title") or g["name"]) for g in list_games()}
    if game not in names or not path.is_file():
        return render(request, "pages/not_found.html", {"what": "game"}, status=404)
    exact, contents = render_file(path)
    shown = exact if spec or not summary.is_file() else render_file(summary)[0]
    return render(request, "pages/rules.html", {
        "title": names[game], "game": game, "rules": mark_safe(shown),  # noqa: S308
        "contents": contents, "is_spec": spec or not summary.is_file(), "has_summary": summary.is_file(),
    })


def rules_spec(request: HttpRequest, game: str) -> HttpResponse:
    return rules(request, game, spec=True)
