"""One match, one CPU (workers/sandbox/pinning.py): the runner's thread and its seats' processes share a leased CPU.

The leases are real flocks in a lock dir of the test's own (`locks`), so other test processes that run matches
meanwhile neither take this test's CPUs nor are taken from; the matches are real, in the bubblewrap sandbox.
"""

from __future__ import annotations

import gc
import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psutil
import pytest
from celery.exceptions import SoftTimeLimitExceeded

from tournaments.bot_lifecycle import upload_bot_version
from tournaments.models import BotVersion, Ladder, Match
from tournaments.new_matches import create_match
from tournaments.scheduling import start_tournament
from workers.runner import run_match
from workers.sandbox import pinning

ALLOWED = sorted(os.sched_getaffinity(0)) if pinning.can_pin() else []
pytestmark = pytest.mark.skipif(
    len(ALLOWED) < 2, reason="pinning needs at least two CPUs this process may use (one CPU, or no sched_setaffinity)")
needs_bwrap = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bwrap is not installed: run `make sysdeps`")
BOT = Path(__file__).resolve().parent / "bots" / "affinity.py"
# Another worker's leases: flocks on the same files (filelock's UnixFileLock is an flock, as in
# workers/sandbox/pinning.py).
HOLD = """
import os, sys
from filelock import UnixFileLock
held = [UnixFileLock(os.path.join(sys.argv[1], f"cpu-{cpu}.lock")).acquire(timeout=0) for cpu in sys.argv[2:]]
print("held", flush=True)
sys.stdin.read()
"""


@pytest.fixture
def locks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """A lock dir of this test's own, for the runner too (it leases in the default one)."""
    monkeypatch.setattr(pinning, "default_lock_dir", lambda: str(tmp_path))
    return str(tmp_path)


@pytest.fixture
def held_elsewhere(locks: str) -> Iterator[Any]:
    """hold(cpus): another process takes the leases of those CPUs and keeps them until the test ends (or kill())."""
    holders: list[subprocess.Popen[str]] = []

    def hold(cpus: list[int]) -> subprocess.Popen[str]:
        proc = subprocess.Popen([sys.executable, "-c", HOLD, locks, *map(str, cpus)], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, text=True)
        holders.append(proc)
        assert proc.stdout is not None and proc.stdout.readline() == "held\n"
        return proc

    yield hold
    for proc in holders:
        proc.kill()
        proc.wait()


def affinity() -> list[int]:
    return sorted(os.sched_getaffinity(0))


def every_cpu_is_free(locks: str) -> bool:
    """Whether a lease can be had on each allowed CPU at once (then all are given back): none is held any more."""
    leases = [pinning.take_cpu(locks) for _ in ALLOWED]
    for lease in leases:
        if lease is not None:
            lease.release()
    return None not in leases


def raising_after(real: Any) -> Any:
    """real, then SoftTimeLimitExceeded as Celery's soft time limit raises it from a signal handler: at any point."""

    def wrapper(*args: Any) -> Any:
        real(*args)
        raise SoftTimeLimitExceeded()

    return wrapper


# --- the lease and the pin ------------------------------------------------------------------------------------


def test_two_leases_held_at_once_get_different_cpus(locks: str) -> None:
    first, second = pinning.take_cpu(locks), pinning.take_cpu(locks)
    assert first is not None and second is not None
    assert first.number != second.number and {first.number, second.number} <= set(ALLOWED)
    first.release()
    second.release()


def test_a_lease_held_by_another_process_is_respected_and_freed_when_it_is_killed(
        locks: str, held_elsewhere: Any) -> None:
    holder = held_elsewhere(ALLOWED[:-1])
    lease = pinning.take_cpu(locks)
    assert lease is not None and lease.number == ALLOWED[-1]  # the one CPU the other process left
    assert pinning.take_cpu(locks) is None  # and now none at all
    holder.kill()  # a killed worker: the kernel drops its flocks
    holder.wait()
    again = pinning.take_cpu(locks)
    assert again is not None and again.number in ALLOWED[:-1]
    again.release()
    lease.release()


def test_the_thread_is_pinned_inside_and_restored_after(locks: str) -> None:
    before = affinity()
    with pinning.one_cpu(True, locks) as cpu:
        assert cpu in ALLOWED and affinity() == [cpu]
    assert affinity() == before
    assert every_cpu_is_free(locks), "the lease was not given back"


def test_the_thread_is_restored_and_the_lease_dropped_when_the_match_raises(locks: str) -> None:
    before = affinity()
    with pytest.raises(RuntimeError, match="boom"), pinning.one_cpu(True, locks) as cpu:
        assert affinity() == [cpu]
        raise RuntimeError("boom")
    assert affinity() == before
    assert every_cpu_is_free(locks), "a lease outlived the match that raised"


def test_a_signal_raised_just_after_the_pin_restores_the_thread_and_drops_the_lease(
        locks: str, monkeypatch: pytest.MonkeyPatch) -> None:
    before = affinity()
    monkeypatch.setattr(pinning, "_pin", raising_after(pinning._pin))
    with pytest.raises(SoftTimeLimitExceeded), pinning.one_cpu(True, locks):
        pytest.fail("the block ran though entering it raised")
    assert affinity() == before
    assert every_cpu_is_free(locks), "a lease outlived the pin that raised"


def test_a_signal_raised_while_restoring_still_drops_the_lease(locks: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pinning, "_restore", raising_after(pinning._restore))
    with pytest.raises(SoftTimeLimitExceeded), pinning.one_cpu(True, locks) as cpu:
        assert cpu is not None
    assert every_cpu_is_free(locks), "a lease outlived the restore that raised"


def test_a_lease_dropped_without_release_is_given_back_when_collected(locks: str) -> None:
    leases = [pinning.take_cpu(locks) for _ in ALLOWED]
    assert None not in leases and pinning.take_cpu(locks) is None
    del leases
    gc.collect()
    assert every_cpu_is_free(locks), "a lease nobody holds kept its CPU"


def test_with_every_cpu_leased_the_block_waits_for_one_given_back(locks: str, held_elsewhere: Any) -> None:
    """Unpinned, a match's seats would run on the CPUs other matches leased: it waits instead. The order of events
    shows it: the wait looked (check) while every CPU was held, the holder went, then the block ran pinned."""
    holder = held_elsewhere(ALLOWED)
    events: list[str] = []

    def check() -> None:
        if not events:
            events.append("waited")
            holder.kill()
            holder.wait()

    with pinning.one_cpu(True, locks, check=check) as cpu:
        events.append("pinned")
        assert cpu in ALLOWED and affinity() == [cpu]
    assert events == ["waited", "pinned"]
    assert every_cpu_is_free(locks)


def test_a_wait_for_a_cpu_ends_when_its_check_raises(locks: str, held_elsewhere: Any) -> None:
    """The runner's check is its match lease's (workers/runner.py): a match given away stops waiting."""
    held_elsewhere(ALLOWED)
    before = affinity()

    def check() -> None:
        raise SoftTimeLimitExceeded()

    with pytest.raises(SoftTimeLimitExceeded), pinning.one_cpu(True, locks, check=check):
        pytest.fail("the block ran without a CPU")
    assert affinity() == before


def test_switched_off_nothing_is_pinned_or_leased(locks: str) -> None:
    before = affinity()
    with pinning.one_cpu(False, locks) as cpu:
        assert cpu is None and affinity() == before
        assert not list(Path(locks).iterdir())


def test_a_thread_allowed_one_cpu_only_leases_it(locks: str) -> None:
    """Two matches must not share a CPU, even a thread's only one: it is leased like any other."""
    seen: list[Any] = []

    def confined() -> None:  # a thread of its own, so the test's thread keeps its affinity whatever happens
        os.sched_setaffinity(0, {ALLOWED[-1]})
        with pinning.one_cpu(True, locks) as cpu:
            seen.append(cpu)
            seen.append(pinning.take_cpu(locks))  # taken: another match would wait

    thread = threading.Thread(target=confined)
    thread.start()
    thread.join()
    assert seen == [ALLOWED[-1], None]


def test_a_process_takes_the_cpu_of_its_last_match_again_when_it_is_free(locks: str) -> None:
    for _ in range(4):
        with pinning.one_cpu(True, locks) as first:
            pass
        with pinning.one_cpu(True, locks) as second:
            assert second == first


# --- a real match in the sandbox ---------------------------------------------------------------------------------


def affinity_versions(owner: Any) -> list[BotVersion]:
    versions = []
    for name in ("north", "south"):
        version = upload_bot_version(owner, name, "evolution", "affinity.py", BOT.read_bytes(), dispatch=False)
        version.status = BotVersion.Status.ACTIVE  # the smoke match is tested elsewhere (test_validation.py)
        version.save(update_fields=["status"])
        versions.append(version)
    return versions


def descendants(pid: int) -> list[int]:
    """The processes under pid (its children's children too), as the host sees them."""
    try:
        return [child.pid for child in psutil.Process(pid).children(recursive=True)]
    except psutil.NoSuchProcess:
        return []


def allowed_list(pid: int) -> tuple[str, str] | None:
    """(the process's name, its Cpus_allowed_list), or None once it is gone."""
    try:
        status = dict(line.split(":\t", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines()
                      if ":\t" in line)
    except OSError:
        return None
    return status["Name"].strip(), status["Cpus_allowed_list"].strip()


class SeatWatch:
    """A thread that, while a match plays, records the name and allowed CPUs of every process under this one.

    Every (name, allowed CPUs) seen is kept, not the first per pid: a bot's pid is bwrap's until bwrap execs it."""

    def __init__(self) -> None:
        self.seen: set[tuple[str, str]] = set()
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)  # started unpinned, before the match

    def __enter__(self) -> SeatWatch:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._done.set()
        self._thread.join()

    def _watch(self) -> None:
        while not self._done.wait(0.005):
            for pid in descendants(os.getpid()):
                if (found := allowed_list(pid)) is not None:
                    self.seen.add(found)


def played(ladder: Ladder, versions: list[BotVersion]) -> tuple[Match, SeatWatch, list[int]]:
    """A match of the two versions run by the runner, watched; with the runner thread's affinity after it."""
    match = create_match(ladder, versions, seed=7)
    with SeatWatch() as watch:
        assert run_match(match.pk) == "finished"
    return match, watch, affinity()


def reported(match: Match) -> list[dict[str, str]]:
    """What each seat's bot said of its CPUs, from its log: {"affinity": "0", "allowed self": ..., ...}."""
    logs = []
    for seat in match.seats.order_by("number"):
        lines = [line.split(": ", 1) for line in seat.log.splitlines() if ": " in line]
        logs.append({key: value for key, value in lines if key in ("affinity", "allowed self", "allowed init")})
    return logs


@pytest.fixture
def ladder(db: None) -> Ladder:
    return Ladder.objects.create(name="pinned", game="evolution", players_per_match=2)


@needs_bwrap
@pytest.mark.sandbox
@pytest.mark.django_db
def test_each_seat_and_its_bwrap_may_run_on_the_matchs_one_cpu_only(ladder: Ladder, alice: Any, locks: str) -> None:
    before = affinity()
    match, watch, after = played(ladder, affinity_versions(alice))
    cpu = str(pinning._last_cpu)
    assert pinning._last_cpu in ALLOWED
    for report in reported(match):  # inside the sandbox: the bot, and bwrap's init as pid 1 of its namespace
        assert report == {"affinity": cpu, "allowed self": cpu, "allowed init": cpu}
    names = {name for name, _ in watch.seen}
    assert "bwrap" in names and any(n.startswith("python") for n in names), f"the seats were not seen: {names}"
    assert {allowed for _, allowed in watch.seen} == {cpu}, watch.seen  # outer bwrap too, as the host sees
    assert after == before, "the runner's thread was left pinned"
    assert (Path(locks) / f"cpu-{cpu}.lock").exists()
    assert every_cpu_is_free(locks), "the match kept its CPU's lease"


@needs_bwrap
@pytest.mark.sandbox
@pytest.mark.django_db
def test_with_every_cpu_leased_elsewhere_the_match_waits_and_plays_pinned(ladder: Ladder, alice: Any,
                                                                         held_elsewhere: Any,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    holder = held_elsewhere(ALLOWED)
    waits: list[str] = []

    def give_back() -> None:  # the first look found every CPU held; then the holder goes
        waits.append("waited")
        holder.kill()
        holder.wait()

    monkeypatch.setattr(pinning, "_pause", give_back)
    match, watch, after = played(ladder, affinity_versions(alice))
    assert waits == ["waited"]
    cpu = str(pinning._last_cpu)
    assert [report["affinity"] for report in reported(match)] == [cpu, cpu]
    assert after == ALLOWED


@needs_bwrap
@pytest.mark.sandbox
@pytest.mark.django_db
def test_switched_off_by_the_setting_no_match_is_pinned(ladder: Ladder, alice: Any, locks: str,
                                                       settings: Any) -> None:
    settings.LUDUS_PIN_MATCHES = False
    everywhere = ",".join(map(str, ALLOWED))
    match, watch, after = played(ladder, affinity_versions(alice))
    assert [report["affinity"] for report in reported(match)] == [everywhere, everywhere]
    assert {allowed for _, allowed in watch.seen} <= {f"{ALLOWED[0]}-{ALLOWED[-1]}", everywhere}
    assert not list(Path(locks).iterdir()), "a CPU was leased though pinning is off"


@pytest.mark.django_db
def test_a_match_of_built_in_bots_alone_is_not_pinned(tournament: Any, locks: str) -> None:
    """Nothing to hand over to another process, and a pinned thread could not leave a CPU that other work keeps busy:
    with the whole match pinned (795deee), `python -m benchmarks.match --seeds 6 --json --baseline <ba37001, before
    pinning>` at load ~3 gave the built-in match's play (phases_ms.builtin.play) 159 ms against 103 unpinned."""
    match = start_tournament(tournament)[0]
    assert run_match(match.pk) == "finished"
    assert not list(Path(locks).iterdir()), "a CPU was leased for a match without a sandboxed seat"
