"""Version tests (docs/version-tests.md): new against base on duplicate deals, in batches, stopped by an SPRT.

The one service behind `manage.py test_versions`, `POST /api/tests/` and the version page's form. A test's games
are unrated matches of the system's paused "version tests <game>" ladder, sent below ladder and tournament matches
(dispatch.PRIORITY_TEST) and only while tests take less than settings.LUDUS_TEST_SHARE of the workers' time, or
nothing else waits. After each batch `advance_test` tallies it, updates the LLR and stops at a decision or the cap.
The statistics are tournaments/sprt.py; what only a replay holds (CPU, time per move) comes from a `Measure` the
caller passes (replays/version_test_measures.py), since this package may not read replays.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import DurationField, ExpressionWrapper, F, Q, Sum
from django.db.models.functions import Coalesce, Now
from django.utils import timezone

from engine import InvalidOptions, load_game
from engine.bots import is_bot_name
from tournaments import sprt
from tournaments.builtins import ensure_builtin
from tournaments.dispatch import PRIORITY_TEST, enqueue_matches, results_verifying
from tournaments.formats.round_robin import derive_match_seed
from tournaments.models import Bot, BotVersion, Match, Seat, VersionTest, VersionTestGame
from tournaments.new_matches import create_matches
from tournaments.numbers import MAX_ID, is_whole
from tournaments.system_ladders import system_ladder
from tournaments.visibility import new_seed, visible_versions

TESTS_LADDER = "version tests "  # the name's start of the system's ladders of test games
MAX_GAMES = 20000  # the highest game cap a test may ask for
SHARE_WINDOW = timedelta(minutes=10)  # the trailing window the worker-time share is measured over
UNFINISHED = (Match.Status.QUEUED, Match.Status.RUNNING)
VOID = (Match.Status.FAILED, Match.Status.CANCELLED)

# match id -> seat number -> {"cpu_ms", "moves", "timeouts", "ms": [per move]}: what only the replays hold.
Measure = Callable[[list[int]], dict[int, dict[int, dict[str, Any]]]]


class TestRefused(ValueError):
    """A request that cannot start a test; `field` names the input at fault (the API's 400 key)."""

    __test__ = False  # not a pytest class

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field


@dataclass(frozen=True)
class TestRequest:
    """What to test: version ids new and base, the table size, the field (built-in names or version ids, in seat
    order; default greedy bots), the hypotheses on new's score-share lead (d0, d1) and error rates, the game cap."""

    __test__ = False

    new: int
    base: int
    players: int | None = None
    game: str | None = None
    field: Sequence[str | int] = ()
    d0: float = 0.0
    d1: float = 0.05
    alpha: float = 0.05
    beta: float = 0.05
    max_games: int = 2000
    batch_deals: int = 4
    options: dict[str, Any] = dataclasses.field(default_factory=dict)
    seed: int | None = None  # the server draws one; benchmarks and tests replay theirs (no door passes it in)


# --- starting a test ------------------------------------------------------------------------------------------------


def start_test(user: Any, request: TestRequest) -> VersionTest:
    """A running test of request, its first batch queued. Raises TestRefused."""
    new, base = (_version(user, key, pk) for key, pk in (("new", request.new), ("base", request.base)))
    game = _game_of(request.game, new, base)
    players = _players(game, request.players, len(request.field))
    others = _field(user, request.field, players)
    hypotheses = _hypotheses(request)
    _check_rest(game, request)
    versions = [new, base, *others]
    private = any(v.bot.visibility == Bot.Visibility.PRIVATE for v in versions)
    with transaction.atomic():
        test = VersionTest.objects.create(
            owner=user, new=new, base=base, game=game, players=players, options=request.options,
            field=[v.pk for v in others], d0=hypotheses.d0, d1=hypotheses.d1, alpha=hypotheses.alpha,
            beta=hypotheses.beta, max_games=request.max_games, batch_deals=request.batch_deals,
            seed=new_seed() if request.seed is None else request.seed,
            visibility=Bot.Visibility.PRIVATE if private else Bot.Visibility.PUBLIC,
            results=_empty_results(hypotheses))
        queue_batch(test)
    return test


def _version(user: Any, key: str, pk: int) -> BotVersion:
    version = visible_versions(user).select_related("bot").filter(pk=pk).first()
    if version is None:  # one the user may not see answers like one that does not exist
        raise TestRefused(key, f"no bot version {pk}")
    if version.status not in (BotVersion.Status.ACTIVE, BotVersion.Status.RETIRED):
        raise TestRefused(key, f"{version.label} is {version.status}: only an active (or retired) version plays")
    return version


def _game_of(asked: str | None, new: BotVersion, base: BotVersion) -> str:
    games = {v.bot.game for v in (new, base) if not v.is_builtin()} | ({asked} if asked else set())
    if len(games) != 1:
        raise TestRefused("game", "new and base must play one game (give `game` when both are built-in): got "
                                  f"{', '.join(sorted(games)) or 'none'}")
    game = games.pop()
    try:
        load_game(game)
    except (InvalidOptions, ImportError) as exc:
        raise TestRefused("game", str(exc)) from exc
    return game


def _players(game: str, asked: int | None, field_size: int) -> int:
    spec = load_game(game)
    players = asked or (field_size + 2 if field_size else max(2, spec.min_players))
    if players < 2:
        raise TestRefused("players", f"a test needs new and base at one table: at least 2 players, got {players}")
    try:
        spec.check_players(players)
    except InvalidOptions as exc:
        raise TestRefused("players", str(exc)) from exc
    return players


def _field(user: Any, names: Sequence[str | int], players: int) -> list[BotVersion]:
    """The other seats: built-in names or version ids the user may seat; greedy bots by default."""
    wanted = list(names) or ["greedy"] * (players - 2)
    if len(wanted) != players - 2:
        raise TestRefused("field", f"{players} players leave {players - 2} seat(s) for the field, got {len(wanted)}")
    seen: dict[str, int] = {}
    versions = []
    for entry in wanted:
        if isinstance(entry, int) or (is_whole(str(entry)) and int(entry) <= MAX_ID):
            versions.append(_version(user, "field", int(entry)))
        elif is_bot_name(str(entry)):
            seen[str(entry)] = seen.get(str(entry), 0) + 1
            name = str(entry) if seen[str(entry)] == 1 else f"{entry}-{seen[str(entry)]}"
            versions.append(ensure_builtin(name, str(entry)))
        else:
            raise TestRefused("field", f"{entry!r} is neither a built-in bot nor a bot version id")
    return versions


def _hypotheses(request: TestRequest) -> sprt.Hypotheses:
    try:
        return sprt.Hypotheses(request.d0, request.d1, request.alpha, request.beta)
    except sprt.BadBounds as exc:
        raise TestRefused("bounds", str(exc)) from exc


def _check_rest(game: str, request: TestRequest) -> None:
    if not 2 <= request.max_games <= MAX_GAMES:
        raise TestRefused("max_games", f"the game cap must be 2 to {MAX_GAMES}, got {request.max_games}")
    if not 1 <= request.batch_deals <= 100:
        raise TestRefused("batch_deals", f"a batch is 1 to 100 deals, got {request.batch_deals}")
    try:
        load_game(game).validate_options(request.options)
    except InvalidOptions as exc:
        raise TestRefused("options", str(exc)) from exc


def _empty_results(hypotheses: sprt.Hypotheses) -> dict[str, Any]:
    return {"bounds": list(hypotheses.bounds), "deals": {}, "wins": {}, "void": [], "llr_history": [],
            "versions": {"new": _empty_tally(), "base": _empty_tally()}, "score": None, "win_rate": None}


def _empty_tally() -> dict[str, Any]:
    return {"games": 0, "points": 0.0, "wins": 0, "faults": 0, "forfeits": 0, "timeouts": 0, "moves": 0,
            "cpu_ms": 0}


# --- deals and batches ----------------------------------------------------------------------------------------------


def pair_seats(deal: int, players: int) -> tuple[int, int]:
    """The seats new and base share in a deal: they move round the table deal by deal, so each version takes each
    seat position of the pair; the field keeps its order in the other seats."""
    return deal % players, (deal + 1) % players


def table(test: VersionTest, deal: int, swapped: bool) -> tuple[list[int], int, int]:
    """The deal's game: its version ids in seat order, and new's and base's seats."""
    first, second = pair_seats(deal, test.players)
    new_seat, base_seat = (second, first) if swapped else (first, second)
    others = iter(test.field)
    seats = [test.new_id if n == new_seat else test.base_id if n == base_seat else next(others)
             for n in range(test.players)]
    return seats, new_seat, base_seat


def deal_seed(test: VersionTest, deal: int) -> int:
    """Both games of a deal share its seed, derived from the test's secret seed: 62 bits, as wide as every other
    game's (a 31-bit seed's decks can be tabulated, and a game's opening looked up in the table)."""
    return derive_match_seed(test.seed, deal)


def queue_batch(test: VersionTest) -> int:
    """Queue the next batch of deals (two games each) within the cap, sent after commit; return the games."""
    scheduled = test.games.count()
    deals = min(test.batch_deals, (test.max_games - scheduled) // 2)
    if deals <= 0:
        return 0
    first = scheduled // 2
    plan = [(deal, swapped, *table(test, deal, swapped)) for deal in range(first, first + deals)
            for swapped in (False, True)]
    clock = {"options": test.options, "move_ms": settings.LUDUS_MOVE_MS, "bank_ms": settings.LUDUS_BANK_MS,
             "max_faults": settings.LUDUS_MAX_FAULTS}
    ladder = system_ladder(TESTS_LADDER, test.game, test.players, "version tests only; unrated")
    matches = create_matches(ladder, [(seats, deal_seed(test, deal), clock) for deal, _, seats, _, _ in plan],
                             rated=False)
    VersionTestGame.objects.bulk_create([
        VersionTestGame(test=test, match=match, deal=deal, swapped=swapped, new_seat=new_seat, base_seat=base_seat)
        for match, (deal, swapped, _, new_seat, base_seat) in zip(matches, plan, strict=True)])
    enqueue_matches([m.pk for m in matches], priority=PRIORITY_TEST)
    return len(matches)


# --- the share of the workers' time ----------------------------------------------------------------------------------


def worker_seconds(since: Any) -> tuple[float, float]:
    """(tests', everyone's) seconds of match play since `since`: finished matches and the running ones so far."""
    played = ExpressionWrapper(Coalesce(F("finished_at"), Now()) - F("started_at"), output_field=DurationField())
    recent = Match.objects.filter(started_at__isnull=False).filter(Q(finished_at__gte=since) | Q(finished_at=None))
    totals = recent.aggregate(all=Sum(played), tests=Sum(played, filter=Q(version_test_game__isnull=False)))
    return tuple((totals[key] or timedelta()).total_seconds() for key in ("tests", "all"))  # type: ignore[return-value]


def may_queue_batch() -> bool:
    """Tests may take more than their share of the workers only while no other match waits."""
    others_wait = Match.objects.filter(status=Match.Status.QUEUED, version_test_game__isnull=True).exists()
    if not others_wait:
        return True
    tests, everyone = worker_seconds(timezone.now() - SHARE_WINDOW)
    return everyone == 0 or tests / everyone < settings.LUDUS_TEST_SHARE


# --- advancing ------------------------------------------------------------------------------------------------------


def hypotheses_of(test: VersionTest) -> sprt.Hypotheses:
    return sprt.Hypotheses(test.d0, test.d1, test.alpha, test.beta)


def advance_test(test_id: int, measure: Measure | None = None) -> str:
    """Once a batch is played: tally it, update the LLR, and stop (passed, failed, capped) or queue the next batch
    when the share allows. Returns the test's status, or "playing" / "verifying" (a game's replay is still verifying:
    its result may yet be reverted, and the verification advances the test) / "held"; safe to call any time,
    twice."""
    with transaction.atomic():
        test = VersionTest.objects.select_for_update().filter(pk=test_id).first()
        if test is None or not test.is_running():
            return test.status if test else "gone"
        rows = list(test.games.select_related("match").order_by("deal", "swapped"))
        if any(row.match.status in UNFINISHED for row in rows):
            return "playing"
        if results_verifying(Match.objects.filter(pk__in=_finished(_untallied(test, rows)))):
            return "verifying"
        tally(test, rows, measure)
        outcome = _next_step(test, len(rows))
        test.save()
    return outcome


def _next_step(test: VersionTest, scheduled: int) -> str:
    verdict = sprt.decide(test.llr, hypotheses_of(test))
    if verdict != sprt.CONTINUE:
        return finish(test, VersionTest.Status.PASSED if verdict == sprt.ACCEPT else VersionTest.Status.FAILED)
    if scheduled + 2 > test.max_games:
        return finish(test, VersionTest.Status.CAPPED)
    if not may_queue_batch():
        return "held"
    queue_batch(test)
    return test.status


def finish(test: VersionTest, status: str) -> str:
    test.status, test.finished_at = status, timezone.now()
    return status


def cancel_test(test: VersionTest) -> bool:
    """Stop a running test: its queued games are cancelled, what was played stays."""
    with transaction.atomic():
        locked = VersionTest.objects.select_for_update().get(pk=test.pk)
        if not locked.is_running():
            return False
        Match.objects.filter(version_test_game__test=locked, status=Match.Status.QUEUED).update(
            status=Match.Status.CANCELLED, finished_at=Now())
        finish(locked, VersionTest.Status.CANCELLED)
        locked.save(update_fields=["status", "finished_at"])
    return True


def advance_running_tests(measure: Measure | None = None) -> int:
    """Beat: advance every running test; return how many queued a batch or ended."""
    return sum(advance_test(pk, measure) not in ("playing", "verifying", "held", VersionTest.Status.RUNNING)
               for pk in VersionTest.objects.filter(status=VersionTest.Status.RUNNING).values_list("pk", flat=True))


# --- the tally ------------------------------------------------------------------------------------------------------


def tally(test: VersionTest, rows: list[VersionTestGame], measure: Measure | None) -> None:
    """Add the deals played since the last tally to test.results, and recompute the LLR and the intervals."""
    by_deal = _untallied(test, rows)
    fresh = _finished(by_deal)
    measured = measure(fresh) if measure and fresh else {}
    seats = _seats(fresh)
    for deal, games in sorted(by_deal.items()):
        _tally_deal(test, deal, games, seats, measured)
    _summarize(test)


def _untallied(test: VersionTest, rows: list[VersionTestGame]) -> dict[int, list[VersionTestGame]]:
    """The games of the deals not tallied yet, by deal."""
    results = test.results
    done = set(results["deals"]) | {str(deal) for deal in results["void"]}
    by_deal: dict[int, list[VersionTestGame]] = {}
    for row in rows:
        if str(row.deal) not in done:
            by_deal.setdefault(row.deal, []).append(row)
    return by_deal


def _finished(by_deal: dict[int, list[VersionTestGame]]) -> list[int]:
    return [row.match_id for games in by_deal.values() for row in games if row.match.status == Match.Status.FINISHED]


def _seats(match_ids: list[int]) -> dict[int, dict[int, dict[str, Any]]]:
    rows = Seat.objects.filter(match_id__in=match_ids).values("match_id", "number", "rank", "faults", "forfeited")
    seats: dict[int, dict[int, dict[str, Any]]] = {}
    for row in rows:
        seats.setdefault(row["match_id"], {})[row["number"]] = dict(row)
    return seats


def _tally_deal(test: VersionTest, deal: int, games: list[VersionTestGame], seats: dict[int, dict[int, Any]],
                measured: dict[int, dict[int, dict[str, Any]]]) -> None:
    results = test.results
    finished = [g for g in games if g.match.status == Match.Status.FINISHED]
    test.games_played += len(finished)
    for game in finished:
        _tally_versions(results["versions"], game, seats[game.match_id], measured.get(game.match_id, {}))
        test.cpu_ms += sum(int(m.get("cpu_ms", 0)) for n, m in measured.get(game.match_id, {}).items()
                           if n in (game.new_seat, game.base_seat))
    if len(finished) < 2:  # a game failed for good: the deal is void (its pair cannot cancel the deal's luck)
        results["void"].append(deal)
        return
    points, wins = [], []
    for game in finished:
        ranks = [seats[game.match_id][n]["rank"] for n in sorted(seats[game.match_id])]
        new_rank, base_rank = ranks[game.new_seat], ranks[game.base_seat]
        points.append(sprt.rank_points(new_rank, ranks) - sprt.rank_points(base_rank, ranks))
        wins.append(float(new_rank == 1) - float(base_rank == 1))
    results["deals"][str(deal)] = sprt.deal_value(points)
    results["wins"][str(deal)] = sprt.deal_value(wins)


def _tally_versions(versions: dict[str, dict[str, Any]], game: VersionTestGame, seats: dict[int, Any],
                    measured: dict[int, dict[str, Any]]) -> None:
    ranks = [seats[n]["rank"] for n in sorted(seats)]
    for key, number in (("new", game.new_seat), ("base", game.base_seat)):
        tally_of, seat, extra = versions[key], seats[number], measured.get(number, {})
        tally_of["games"] += 1
        tally_of["points"] += sprt.rank_points(seat["rank"], ranks)
        tally_of["wins"] += int(seat["rank"] == 1)
        tally_of["faults"] += seat["faults"]
        tally_of["forfeits"] += int(seat["forfeited"])
        for name in ("timeouts", "moves", "cpu_ms"):
            tally_of[name] += int(extra.get(name, 0))


def _summarize(test: VersionTest) -> None:
    results = test.results
    deals = list(results["deals"].values())
    test.llr = sprt.deal_llr(deals, hypotheses_of(test))
    score = sprt.mean_interval(deals, within=(-1.0, 1.0))
    win_rate = sprt.mean_interval(list(results["wins"].values()), within=(-1.0, 1.0))
    results["score"] = score.as_dict() if score else None
    results["win_rate"] = win_rate.as_dict() if win_rate else None
    if not results["llr_history"] or results["llr_history"][-1][0] != test.games_played:
        results["llr_history"].append([test.games_played, round(test.llr, 4)])
