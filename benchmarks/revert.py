"""A reverted result (a replay that does not verify) at two sizes of history: undone, as revert_result does it
(tournaments.ratings.unrate, tournaments.standings.uncount_result), beside the rebuild from the whole history that
it replaced (tournaments.ratings.rebuild_ratings and tournaments.standings.rebuild_standings, as `recompute_ratings`
still runs them), paired in one process: wall milliseconds under the ladder's lock.

    python -m benchmarks.revert                          # ladders of 1,000 and 50,000 two-seat matches
    python -m benchmarks.revert --matches 1000,20000 --repeats 9 --since 10
    python -m benchmarks.revert --matches 1000,200000 --undo-only --repeats 21

Each ladder is made by bulk inserts (32 versions, rated matches with their seats' ratings before and after, the
ratings and standings rows) on a database of its own (benchmarks/standings.py on_own_database). The reverted match
is the one --since matches from the end (a verification comes seconds after its result: only the matches recorded
meanwhile are rated after it). Each revert runs in a transaction that is rolled back, so every one starts from the
same history; the two ways alternate. Medians, minimum and maximum, the paired ratio, and the undo's growth from the
smaller ladder to the larger.
"""

from __future__ import annotations

import argparse
import logging
import random
import statistics
import time
from collections.abc import Callable
from typing import Any

from benchmarks.standings import on_own_database, spread


class RolledBack(Exception):
    pass


def wall_ms(call: Callable[[], Any]) -> float:
    """The call's wall time inside a transaction that is then rolled back."""
    from django.db import transaction

    started = time.perf_counter()
    try:
        with transaction.atomic():
            call()
            elapsed = (time.perf_counter() - started) * 1000
            raise RolledBack
    except RolledBack:
        pass
    return elapsed


def make_ladder(matches: int, rng: random.Random) -> list[int]:
    """A ladder of this many finished rated two-seat matches; their ids in rating order."""
    from django.contrib.auth import get_user_model

    from tournaments.models import Bot, BotVersion, Ladder, Match, Rating, Seat
    from tournaments.ratings import MODEL, PRIOR, add_seat
    from tournaments.standings import rebuild_standings

    owner = get_user_model().objects.get_or_create(username="bench")[0]
    bots = Bot.objects.bulk_create([Bot(owner=owner, name=f"b{matches}-{i}", game="evolution") for i in range(32)])
    versions = BotVersion.objects.bulk_create([BotVersion(bot=bot, number=1, status="active", sha256="0" * 64)
                                               for bot in bots])
    ladder = Ladder.objects.create(name=f"bench {matches}", game="evolution", players_per_match=2,
                                   rating_seq=matches)
    rows = Match.objects.bulk_create([Match(ladder=ladder, game="evolution", num_players=2, seed=i, rated=True,
                                            status="finished", rating_seq=i + 1) for i in range(matches)],
                                     batch_size=2000)
    ratings: dict[int, Any] = {}
    seats = []
    for match in rows:
        pair, first = rng.sample(versions, 2), rng.choice([1, 2])
        ranks = (first, 3 - first)
        before = [ratings.get(v.pk, PRIOR) for v in pair]
        after = MODEL.rate([[MODEL.rating(mu=b[0], sigma=b[1])] for b in before], ranks=[float(r) for r in ranks])
        for number, (version, rank, old, [new]) in enumerate(zip(pair, ranks, before, after, strict=True)):
            seats.append(Seat(match=match, number=number, bot_version=version, score=rng.randint(0, 9), rank=rank,
                              rating_mu_before=old[0], rating_sigma_before=old[1], rating_mu_after=new.mu,
                              rating_sigma_after=new.sigma))
            ratings[version.pk] = (new.mu, new.sigma, old[2] + 1, old[3] + (rank == 1),
                                   add_seat(old[4], number, rank == 1))
    Seat.objects.bulk_create(seats, batch_size=4000)
    Rating.objects.bulk_create([Rating(ladder=ladder, bot_version_id=pk, mu=v[0], sigma=v[1], games=v[2], wins=v[3],
                                       seat_record=v[4]) for pk, v in ratings.items()])
    rebuild_standings(ladder)
    return [match.pk for match in rows]


def measure(sizes: list[int], repeats: int, since: int, undo_only: bool = False) -> None:
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    logging.getLogger("tournaments.services").setLevel(logging.CRITICAL)  # each revert's error line
    from tournaments.models import Match

    rng = random.Random(1)
    undo_medians = []
    for size in sizes:
        played = make_ladder(size, rng)
        samples = paired(Match.objects.select_related("ladder").get(pk=played[-since]), repeats, undo_only)
        if undo_only:
            print(f"{size} matches, the revert {since} from the end, {repeats} times: undo {spread(samples['undo'])}")
        else:
            ratio = statistics.median([a / b for a, b in zip(samples["undo"], samples["rebuild"], strict=True)])
            print(f"{size} matches, the revert {since} from the end, {repeats} pairs: undo {spread(samples['undo'])}; "
                  f"rebuild {spread(samples['rebuild'])}; undo/rebuild {ratio:.3f}")
        undo_medians.append(statistics.median(samples["undo"]))
    if len(sizes) > 1:
        print(f"undo at {sizes[-1]} over undo at {sizes[0]}: {undo_medians[-1] / undo_medians[0]:.2f}")


def paired(target: Any, repeats: int, undo_only: bool = False) -> dict[str, list[float]]:
    """The two ways of reverting target, alternating (or the undo alone): wall milliseconds each."""
    from tournaments.models import Match, Seat
    from tournaments.ratings import rebuild_ratings
    from tournaments.services import RESULT_FIELDS, revert_result
    from tournaments.standings import rebuild_standings

    def undo() -> None:
        assert revert_result(target.pk, "benchmark", flag=lambda match_id: None)

    def rebuild() -> None:  # what revert_result did before: the same first writes, then the whole history
        Match.objects.filter(pk=target.pk).update(status="failed", error="benchmark")
        Seat.objects.filter(match_id=target.pk).update(**RESULT_FIELDS)
        rebuild_ratings(type(target.ladder), target.ladder.pk)
        rebuild_standings(target.ladder)

    samples: dict[str, list[float]] = {"undo": [], "rebuild": []}
    for index in range(repeats):
        for way in ("undo",) if undo_only else (("undo", "rebuild") if index % 2 == 0 else ("rebuild", "undo")):
            samples[way].append(wall_ms(undo if way == "undo" else rebuild))
    return samples


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--matches", default="1000,50000", help="the ladders' sizes, comma-separated")
    parser.add_argument("--repeats", type=int, default=9)
    parser.add_argument("--since", type=int, default=10, help="matches recorded after the reverted one, and it")
    parser.add_argument("--undo-only", action="store_true", help="time the undo alone (the rebuild takes minutes)")
    args = parser.parse_args()
    sizes = [int(size) for size in args.matches.split(",")]
    on_own_database("revert", lambda: measure(sizes, args.repeats, args.since, args.undo_only))


if __name__ == "__main__":
    main()
