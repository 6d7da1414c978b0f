"""The bot page's head-to-head (docs/version-tests.md#the-pages): for each opponent the bot has met, games, score
share and win rate with 95 % intervals, by seat; per version of the bot, fault and timeout rates and time per move.

Served as an HTML fragment the bot page fetches (tournaments may not read replays). Only matches of ladders and
tournaments that are over count (tournaments/visibility.py; no unrated work), and an opponent the user may not
see is one "private bot".
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from replays.version_test_measures import measure_games
from tournaments import sprt
from tournaments.models import Bot, Match, Seat
from tournaments.system_ladders import internal_ladders
from tournaments.visibility import PRIVATE_LABEL, is_shown, over_ids, visible_bots

RECENT_MATCHES = 200  # the newest finished matches read: each costs a replay


def fragment(request: HttpRequest, pk: int) -> HttpResponse:
    bot = Bot.objects.filter(visible_bots(request.user)).filter(pk=pk).first()
    if bot is None:
        return HttpResponse("not found", status=404, content_type="text/plain")
    return render(request, "replays/_head_to_head.html", head_to_head(request.user, bot))


def head_to_head(user: Any, bot: Bot) -> dict[str, Any]:
    recent = (Match.objects.filter(status=Match.Status.FINISHED, seats__bot_version__bot=bot)
              .exclude(internal_ladders("ladder__")).distinct()  # no unrated work (docs/tournaments.md)
              .order_by("-id").values("id", "status", "seed", "ladder", "tournament", "parent")[:RECENT_MATCHES])
    rows = [dict(row) for row in recent]
    over = sorted(over_ids(rows))
    seats: list[dict[str, Any]] = [dict(seat) for seat in Seat.objects.filter(match_id__in=over).values(
        "match_id", "number", "rank", "faults", "bot_version_id", "bot_version__number", "bot_version__bot_id",
        "bot_version__bot__name", "bot_version__bot__visibility", "bot_version__bot__owner_id")]
    by_match: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for seat in seats:
        by_match[seat["match_id"]].append(seat)
    return {"bot": bot, "matches": len(over), "opponents": _opponents(user, bot, by_match),
            "versions": _versions(bot, by_match)}


def _label(user: Any, bot: Bot, seat: dict[str, Any]) -> str:
    if seat["bot_version__bot_id"] == bot.pk:  # another version of this bot (a version test)
        return f"{bot.name}@{seat['bot_version__number']}"
    if not is_shown(user, seat["bot_version__bot__visibility"], seat["bot_version__bot__owner_id"]):
        return PRIVATE_LABEL
    return str(seat["bot_version__bot__name"])


def _opponents(user: Any, bot: Bot, by_match: dict[int, list[dict[str, Any]]]) -> list[dict[str, Any]]:
    """Per opponent and seat of ours: pairwise points (beat it 1, tie 1/2) and firsts, one game a match: the opponents
    a table seats under one label (two private bots) count as one, their points averaged, so that the intervals
    count matches, not pairings."""
    points: dict[tuple[str, int | None], list[float]] = defaultdict(list)
    firsts: dict[tuple[str, int | None], int] = defaultdict(int)
    for table in by_match.values():
        for mine in (s for s in table if s["bot_version__bot_id"] == bot.pk):
            met: dict[str, list[float]] = defaultdict(list)
            for other in (s for s in table if s is not mine):
                score = 1.0 if mine["rank"] < other["rank"] else 0.5 if mine["rank"] == other["rank"] else 0.0
                met[_label(user, bot, other)].append(score)
            for label, scores in met.items():
                for key in ((label, mine["number"]), (label, None)):
                    points[key].append(sum(scores) / len(scores))
                    firsts[key] += int(mine["rank"] == 1)
    rows = []
    for (label, seat), scores in sorted(points.items(), key=lambda item: (item[0][0], item[0][1] is not None,
                                                                          item[0][1] or 0)):
        rows.append({"opponent": label, "seat": seat, "games": len(scores),
                     "score": sprt.mean_interval(scores, within=(0.0, 1.0)),
                     "win_rate": sprt.wilson_interval(firsts[label, seat], len(scores))})
    return rows


def _versions(bot: Bot, by_match: dict[int, list[dict[str, Any]]]) -> list[dict[str, Any]]:
    """Per version of the bot: games, fault and timeout rates per move, time per move (median, p95)."""
    measured = measure_games(list(by_match))
    stats: dict[int, dict[str, Any]] = {}
    for match_id, table in by_match.items():
        for seat in (s for s in table if s["bot_version__bot_id"] == bot.pk):
            row = stats.setdefault(seat["bot_version__number"], {"games": 0, "faults": 0, "timeouts": 0, "ms": []})
            extra = measured.get(match_id, {}).get(seat["number"], {})
            row["games"] += 1
            row["faults"] += seat["faults"]
            row["timeouts"] += extra.get("timeouts", 0)
            row["ms"] += extra.get("ms", [])
    return [{"version": number, "games": row["games"], "moves": len(row["ms"]),
             "fault_rate": row["faults"] / len(row["ms"]) if row["ms"] else None,
             "timeout_rate": row["timeouts"] / len(row["ms"]) if row["ms"] else None,
             "median_ms": sprt.percentile(row["ms"], 0.5), "p95_ms": sprt.percentile(row["ms"], 0.95)}
            for number, row in sorted(stats.items(), reverse=True)]
