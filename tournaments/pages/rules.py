"""The rules of each game as a page, rendered from docs/rules/<game>.md (the same file the engine cites)."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.safestring import mark_safe
from markdown_it import MarkdownIt

from engine import list_games


@lru_cache(maxsize=8)
def _rendered(path: Path, mtime: float) -> str:
    # Raw HTML in the file is escaped ("html": False), so the result is safe to mark as such. Wide tables and code
    # blocks scroll sideways on a phone: focusable, so a keyboard can scroll them too.
    html: str = MarkdownIt("commonmark", {"html": False}).enable("table").render(path.read_text(encoding="utf-8"))
    return html.replace("<table>", '<table tabindex="0">').replace("<pre>", '<pre tabindex="0">')


def rules(request: HttpRequest, game: str) -> HttpResponse:
    path = Path(settings.BASE_DIR) / "docs" / "rules" / f"{game}.md"
    names = {str(g["name"]): str(g.get("title") or g["name"]) for g in list_games()}
    if game not in names or not path.is_file():
        return render(request, "pages/not_found.html", {"what": "game"}, status=404)
    html = _rendered(path, path.stat().st_mtime)
    return render(request, "pages/rules.html", {"title": names[game], "rules": mark_safe(html)})  # noqa: S308
