"""A bot's rating history as a small server-rendered SVG line chart: no JavaScript, no library."""

from __future__ import annotations

from dataclasses import dataclass, field

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

PALETTE = ("#1d4ed8", "#b91c1c", "#047857", "#7c3aed", "#b45309", "#0e7490")
WIDTH, HEIGHT, PAD_LEFT, PAD_RIGHT, PAD_Y = 640, 240, 48, 16, 24


@dataclass
class Series:
    """One competition's conservative rating (mu - 3 sigma) after each of the bot's rated games."""

    label: str
    points: list[float] = field(default_factory=list)
    games: int = 0


def _scale(values: list[float]) -> tuple[float, float]:
    low, high = min(values), max(values)
    if high - low < 1e-9:
        low, high = low - 1, high + 1
    return low, high


def rating_chart(series: list[Series], title: str = "Rating history") -> SafeString:
    """An accessible SVG (role img, title, desc); empty series give a short note instead."""
    series = [s for s in series if s.points]
    if not series:
        return mark_safe('<p class="muted">No rated games yet.</p>')
    low, high = _scale([p for s in series for p in s.points])
    longest = max(len(s.points) for s in series)
    games = max(s.games for s in series)
    x_step = (WIDTH - PAD_LEFT - PAD_RIGHT) / max(1, longest - 1)

    def y(value: float) -> float:
        return PAD_Y + (high - value) / (high - low) * (HEIGHT - 2 * PAD_Y)

    parts = [f'<svg class="chart" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" aria-labelledby="chart-title chart-desc">',
             f'<title id="chart-title">{escape(title)}</title>',
             f'<desc id="chart-desc">{escape(_describe(series))}</desc>']
    parts += _axes(low, high, y, games)
    for index, s in enumerate(series):
        colour = PALETTE[index % len(PALETTE)]
        points = " ".join(f"{PAD_LEFT + i * x_step:.1f},{y(v):.1f}" for i, v in enumerate(s.points))
        parts.append(f'<polyline fill="none" stroke="{colour}" stroke-width="2.5" points="{points}"/>')
        last_x, last_y = PAD_LEFT + (len(s.points) - 1) * x_step, y(s.points[-1])
        parts.append(f'<circle cx="{last_x:.1f}" cy="{last_y:.1f}" r="4" fill="{colour}"/>')
    parts.append("</svg>")
    legend = "".join(f'<li><span class="swatch" style="background:{PALETTE[i % len(PALETTE)]}"></span>'
                     f'{escape(s.label)}: {s.points[-1]:.1f} after {s.games} game(s)</li>'
                     for i, s in enumerate(series))
    return mark_safe("".join(parts) + f'<ul class="legend">{legend}</ul>')


def _axes(low: float, high: float, y: object, games: int) -> list[str]:
    assert callable(y)
    lines = []
    for value in (low, (low + high) / 2, high):
        ypos = y(value)
        lines.append(f'<line x1="{PAD_LEFT}" x2="{WIDTH - PAD_RIGHT}" y1="{ypos:.1f}" y2="{ypos:.1f}" '
                     'stroke="#cbd5e1" stroke-width="1"/>')
        lines.append(f'<text x="{PAD_LEFT - 6}" y="{ypos + 4:.1f}" text-anchor="end" font-size="12" '
                     f'fill="#334155">{value:.1f}</text>')
    lines.append(f'<text x="{WIDTH - PAD_RIGHT}" y="{HEIGHT - 4}" text-anchor="end" font-size="12" '
                 f'fill="#334155">games: {games}</text>')
    return lines


def _describe(series: list[Series]) -> str:
    return "; ".join(f"{s.label}: from {s.points[0]:.1f} to {s.points[-1]:.1f} over {s.games} games"
                     for s in series)
