"""Open live feeds against page latency: a page's p95 idle and with 50 feeds held open, on the real web server.

Each server runs its checkout's own deployment command (docker-compose.yml's `web` service: gunicorn, 3 workers) on
a free loopback port, DEBUG off, on the database of DATABASE_URL (migrated here, and given a small world once: a
ladder, two bots, finished matches and one running match with live progress). The script times sequential GETs of
a page and an API list idle, then opens 50 feeds (half match feeds of the running match, half ladder feeds) and
times them again while the feeds stay open. A request that gets no answer within --timeout counts at the timeout.

    python -m benchmarks.feeds                          # this checkout: p50/p95 idle and loaded, their ratio
    python -m benchmarks.feeds --baseline /tmp/old      # and another checkout, requests alternating between them

The target: the loaded p95 under 10x the idle p95.
"""

from __future__ import annotations

import argparse
import http.client
import os
import secrets
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
FEEDS = 50
TARGET_RATIO = 10.0


def setup_world() -> dict[str, int]:
    """Migrate, and make the small world once; returns the ids the requests use."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    from tournaments.models import Ladder, Match

    ladder = Ladder.objects.filter(name="bench-feeds").first() or fill()
    running = Match.objects.filter(ladder=ladder, status=Match.Status.RUNNING).first()
    assert running is not None
    return {"ladder": ladder.pk, "running": running.pk}


def fill() -> Any:
    from django.contrib.auth import get_user_model

    from engine import load_game
    from replays.progress import save_progress
    from tournaments.models import Bot, BotVersion, Ladder, Match, Seat

    game = load_game("evolution")
    options = game.validate_options({"deck": "short"})
    owner = get_user_model().objects.get_or_create(username="bench-feeds")[0]
    versions = [BotVersion.objects.create(bot=Bot.objects.create(owner=owner, name=f"bench-{n}", game="evolution"),
                                          number=1, source=b"#", status="active") for n in range(2)]
    ladder = Ladder.objects.create(name="bench-feeds", game="evolution", options=options, players_per_match=2)
    for n in range(40):
        status = Match.Status.RUNNING if n == 39 else Match.Status.FINISHED
        match = Match.objects.create(ladder=ladder, game="evolution", num_players=2, seed=n, options=options,
                                     status=status)
        Seat.objects.bulk_create([Seat(match=match, number=i, bot_version=v, score=i, rank=2 - i)
                                  for i, v in enumerate(versions)])
    state = game.new_state(2, 39, options)
    actions = []
    for _ in range(5):
        decision = state.decision()
        assert decision is not None
        actions.append({"seat": decision.seat, "choice": 0, "ms": 1})
        state.choose(0)
    save_progress(Match.objects.get(ladder=ladder, seed=39).pk, 1, actions)
    return ladder


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def web_command(code: Path, port: int) -> list[str]:
    """The checkout's docker-compose `web` command, on a loopback port."""
    import yaml

    command = yaml.safe_load((code / "docker-compose.yml").read_text())["services"]["web"]["command"]
    # A short graceful timeout: a sync worker holding a feed would otherwise keep the server up for 30 s.
    return [sys.executable, "-m", *[part.replace("0.0.0.0:8000", f"127.0.0.1:{port}") for part in command],
            "--graceful-timeout", "5"]


def start(code: Path, port: int) -> subprocess.Popen[bytes]:
    env = dict(os.environ, DEBUG="0", SECRET_KEY=secrets.token_urlsafe(40), ALLOWED_HOSTS="127.0.0.1",
               LOG_LEVEL="ERROR", PYTHONPATH=str(code), LUDUS_FEED_SECONDS="900", LUDUS_FEED_MAX_PER_CLIENT="1000",
               LUDUS_FEED_MAX_OPEN="1000")
    server = subprocess.Popen(web_command(code, port), cwd=code, env=env, stdout=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return server
        except OSError:
            if server.poll() is not None:
                raise SystemExit(f"the server of {code} exited with {server.returncode}") from None
            time.sleep(0.1)
    raise SystemExit(f"the server of {code} did not listen within 60 s")


def get_ms(port: int, path: str, timeout: float) -> float:
    """One GET on a new connection: its time in ms, or the timeout when no answer came."""
    started = time.perf_counter()
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request("GET", path, headers={"Host": "127.0.0.1"})
        response = conn.getresponse()
        response.read()
        assert response.status == 200, f"GET {path}: {response.status}"
    except TimeoutError:
        return timeout * 1000
    finally:
        conn.close()
    return (time.perf_counter() - started) * 1000


def open_feeds(port: int, ids: dict[str, int]) -> list[socket.socket]:
    """Send 50 feed requests and keep their sockets; never wait for an answer (a starved server sends none)."""
    paths = [f"/api/matches/{ids['running']}/feed/", f"/api/ladders/{ids['ladder']}/feed/"] * (FEEDS // 2)
    sockets = []
    for path in paths:
        sock = socket.create_connection(("127.0.0.1", port))
        sock.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
        sockets.append(sock)
    return sockets


def measure(ports: list[int], paths: list[str], requests: int, timeout: float) -> list[list[float]]:
    """Request times per server, alternating between servers; a server that timed out 3 times is left out."""
    times: list[list[float]] = [[] for _ in ports]
    for i in range(requests):
        for which in (range(len(ports)) if i % 2 == 0 else reversed(range(len(ports)))):
            if sum(t >= timeout * 1000 for t in times[which]) < 3:
                times[which].append(get_ms(ports[which], paths[i % len(paths)], timeout))
    return times


def p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20)[-1] if len(values) >= 2 else values[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--baseline", type=Path, help="a checkout of another commit to measure side by side")
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--timeout", type=float, default=10.0, help="seconds before a request counts as starved")
    opts = parser.parse_args()
    ids = setup_world()
    codes = [ROOT] + ([opts.baseline.resolve()] if opts.baseline else [])
    ports = [free_port() for _ in codes]
    servers = [start(code, port) for code, port in zip(codes, ports, strict=True)]
    paths = ["/", "/api/matches/"]
    try:
        for port in ports:
            measure([port], paths, 20, opts.timeout)  # warm-up
        idle = measure(ports, paths, opts.requests, opts.timeout)
        feeds = [open_feeds(port, ids) for port in ports]
        time.sleep(2)  # a pause, not a wait on an outcome: the feeds' first polls are made before the timing
        loaded = measure(ports, paths, opts.requests, opts.timeout)
        for sockets in feeds:
            for sock in sockets:
                sock.close()
        report(codes, idle, loaded, opts.timeout)
    finally:
        for server in servers:
            server.terminate()
            server.wait(timeout=60)


def report(codes: list[Path], idle: list[list[float]], loaded: list[list[float]], timeout: float) -> None:
    print(f"{'server':<28} {'idle p50':>9} {'idle p95':>9} {'50 feeds p50':>13} {'50 feeds p95':>13} {'ratio':>7}"
          f" {'starved':>8}")
    for code, quiet, busy in zip(codes, idle, loaded, strict=True):
        starved = sum(t >= timeout * 1000 for t in busy)
        ratio = p95(busy) / p95(quiet)
        print(f"{str(code)[-28:]:<28} {statistics.median(quiet):9.1f} {p95(quiet):9.1f} "
              f"{statistics.median(busy):13.1f} {p95(busy):13.1f} {ratio:7.2f} {starved:>4}/{len(busy)}")
    print(f"target: 50-feed p95 under {TARGET_RATIO:g}x the idle p95 (ms; a starved request counts {timeout:g} s)")


if __name__ == "__main__":
    main()
