"""`ludus COMMAND ...`: the commands, their arguments and their output. Errors are one line on stderr, and the exit
status says what happened: 0 done (an active version, a finished match), 1 refused, failed or rejected, 2 bad
arguments."""

from __future__ import annotations

import argparse
import getpass
import re
import sys
import time
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from ludus_client import config, tests
from ludus_client.http import Api, ClientError
from ludus_client.matches import find_ladder, find_version, follow, request_match, result_table
from ludus_client.replay_file import encode_replay

VALIDATED = ("active", "rejected", "retired")
out = Console(highlight=False, soft_wrap=True)
err = Console(stderr=True, highlight=False, soft_wrap=True)


def api(settings: config.Settings, needs_token: bool = False) -> Api:
    if needs_token and not settings.token:
        raise ClientError("not logged in: run `ludus login`, or set LUDUS_TOKEN")
    return Api(settings.url, settings.token)


def login(args: argparse.Namespace) -> int:
    settings = config.load()
    url = args.url or settings.url
    username = args.username or input("username: ")
    password = sys.stdin.readline().rstrip("\n") if args.password_stdin else getpass.getpass("password: ")
    token = Api(url, None).post("/api/auth/token/", json={"username": username, "password": password})["token"]
    path = config.save(config.Settings(url=url, token=token, username=username))
    out.print(f"logged in to {url} as {username}; token saved in {path}")
    return 0


def upload(args: argparse.Namespace) -> int:
    client = api(config.load(), needs_token=True)
    path = Path(args.file)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ClientError(f"cannot read {path}: {exc.strerror}") from None
    name = args.name or re.sub(r"[^A-Za-z0-9_-]+", "-", path.stem).strip("-") or "bot"
    form = {"name": name, "game": args.game, "description": args.description}
    version = client.post("/api/bots/upload/", data=form, files={"file": (path.name, data)})
    out.print(f"uploaded {version['bot']}@{version['number']} (version {version['id']}): {version['status']}")
    if args.wait and version["status"] not in VALIDATED:
        version = wait_for_validation(client, version["id"], args.timeout)
        out.print(f"{version['bot']}@{version['number']}: {version['status']}")
    if version.get("validation_log"):
        out.print(version["validation_log"].rstrip(), markup=False)
    return 1 if version["status"] == "rejected" else 0


def wait_for_validation(client: Api, version_id: int, timeout_s: float) -> dict[str, Any]:
    """The version once its smoke match has decided (active or rejected)."""
    deadline = time.monotonic() + timeout_s
    with err.status(f"version {version_id}: validating in the sandbox"):
        while True:
            version = dict(client.get(f"/api/versions/{version_id}/"))
            if version["status"] in VALIDATED or time.monotonic() > deadline:
                break
            time.sleep(1)  # a poll interval: the API has no feed for validations
    if version["status"] in VALIDATED:
        return version
    raise ClientError(f"version {version_id} is still {version['status']} after {timeout_s:.0f} s; "
                      f"check later with `ludus bots`")


def bots(args: argparse.Namespace) -> int:
    settings = config.load()
    owner = args.owner or (None if args.all else settings.username)
    table = Table(title=f"bots of {owner}" if owner else "bots")
    for column in ("id", "name", "owner", "game", "visibility", "latest version"):
        table.add_column(column)
    for bot in api(settings).pages("/api/bots/", owner=owner):
        table.add_row(str(bot["id"]), bot["name"], bot["owner"], bot["game"] or "any", bot["visibility"],
                      str(bot["latest_version"] or ""))
    out.print(table)
    return 0


def ladders(args: argparse.Namespace) -> int:
    table = Table(title="ladders")
    for column in ("id", "name", "game", "players", "paused"):
        table.add_column(column)
    for ladder in api(config.load()).pages("/api/ladders/", game=args.game):
        table.add_row(str(ladder["id"]), ladder["name"], ladder["game"], str(ladder["players_per_match"]),
                      "yes" if ladder["paused"] else "")
    out.print(table)
    return 0


def match(args: argparse.Namespace) -> int:
    client = api(config.load(), needs_token=True)
    requested = request_match(client, args.ladder, [args.bot, *args.vs], args.rated)
    out.print(f"match {requested['id']} requested on ladder {args.ladder}: {requested['status']}")
    status = follow(client, requested["id"], err, args.timeout)
    if status == "finished":
        out.print(result_table(client.get(f"/api/matches/{requested['id']}/")))
    out.print(f"{status}; watch it at {client.url}/replays/{requested['id']}/")
    return 0 if status == "finished" else 1


def branch(args: argparse.Namespace) -> int:
    """Branch a finished match (docs/branches.md), follow each branch live, print its result beside the parent's."""
    client = api(config.load(), needs_token=True)
    wanted = [seat_spec(spec) for spec in args.seat]
    parent = client.get(f"/api/matches/{args.match}/")
    seats = {number: bot if is_builtin_ref(bot) else str(find_version(client, bot, parent["game"])["id"])
             for number, bot in wanted}
    body = {"step": args.step, "seats": seats, "force": args.force, "games": args.games, "resample": args.resample,
            "seed": args.seed}
    branches = client.post(f"/api/matches/{args.match}/branches/", json=body)["branches"]
    out.print(result_table(parent))
    statuses = []
    for child in branches:
        out.print(f"branch match {child['id']} of match {args.match} at step {args.step}: {child['status']}")
        statuses.append(follow(client, child["id"], err, args.timeout))
        out.print(result_table(client.get(f"/api/matches/{child['id']}/")))
        out.print(f"beside its parent: {client.url}/replays/{child['id']}/compare/")
    ours = {child["id"] for child in branches}
    for batch in client.get(f"/api/matches/{args.match}/branches/").get("batches", []):
        if ours & set(batch["branches"]):
            out.print(batch_summary(batch), markup=False)
    return 0 if all(status == "finished" for status in statuses) else 1


def batch_summary(batch: dict[str, Any]) -> str:
    """A resampled batch against its parent (docs/branches.md#batches): per seat, wins and mean score with their 95 %
    intervals, then the server's verdict line."""
    lines = [f"batch of {batch['games']} re-dealt games at step {batch['step']} ({batch['finished']} finished), "
             "against the parent's outcome:"]
    for seat in batch["seats"]:
        won = "won" if seat["parent_won"] else "did not win"
        rate, score = seat["win_rate"], seat["score"]
        detail = "no game yet" if not seat["games"] else (
            f"wins {seat['wins']} of {seat['games']} (95 % {rate['low']:.0%} to {rate['high']:.0%}), mean score "
            f"{score['mean']:.1f} (95 % {score['low']:.1f} to {score['high']:.1f})")
        lines.append(f"  seat {seat['seat']}: parent {seat['parent_score']}, {won}; batch {detail}")
    return "\n".join(lines + [batch["said"]])


def test(args: argparse.Namespace) -> int:
    """Start a version test (docs/version-tests.md) and follow it to its verdict: exit 0 when new passed."""
    client = api(config.load(), needs_token=True)
    new, base = (tests.version_id(client, ref, args.game) for ref in (args.new, args.base))
    body = {"new": new, "base": base, "game": args.game, "players": args.players, "d0": args.d0, "d1": args.d1,
            "alpha": args.alpha, "beta": args.beta, "max_games": args.max_games,
            "field": [name.strip() for name in (args.field or "").split(",") if name.strip()]}
    started = tests.start(client, body)
    out.print(f"test {started['id']} started: {started['new_label']} against {started['base_label']}; "
              f"{client.url}/tests/{started['id']}/")
    if not args.wait:
        return 0
    ended = tests.follow(client, started["id"], err, args.timeout)
    out.print(tests.verdict_table(ended))
    return 0 if ended["status"] == "passed" else 1


def seat_spec(spec: str) -> tuple[str, str]:
    """"1=greedy" -> ("1", "greedy"); one line for anything else."""
    number, _, bot = spec.partition("=")
    if not number.isdigit() or not bot:
        raise ClientError(f"--seat takes N=BOT, got {spec!r}")
    return number, bot


def is_builtin_ref(bot: str) -> bool:
    """A version id or a built-in bot's name, which the server takes as they are."""
    return bot.isdigit() or bot in ("greedy", "random") or bot.startswith("greedy_eps")


def standings(args: argparse.Namespace) -> int:
    client = api(config.load())
    ladder = find_ladder(client, args.ladder)
    table = Table(title=f"{ladder['name']} ({ladder['game']}): rating = mu - 3 sigma")
    for column in ("#", "bot", "owner", "rating", "mu", "sigma", "games", "wins"):
        table.add_column(column)
    rows = client.pages(f"/api/ladders/{ladder['id']}/standings/")
    for rank, row in enumerate(rows, start=1):
        provisional = " (provisional)" if row["provisional"] else ""
        table.add_row(str(rank), row["name"], row["owner"] or "", f"{row['rating']:.2f}{provisional}",
                      f"{row['mu']:.2f}", f"{row['sigma']:.2f}", str(row["games"]), str(row["wins"]))
    out.print(table)
    return 0


def replay(args: argparse.Namespace) -> int:
    client = api(config.load())
    replay = client.get(f"/api/matches/{args.match}/replay/")
    # Each action as stored: the API adds its `step` (index + 1, the viewer's numbering), which the file does not hold.
    actions = [{key: value for key, value in action.items() if key != "step"}
               for action in client.get(f"/api/matches/{args.match}/replay/actions/")["actions"]]
    document = {"header": replay["header"], "actions": actions, "footer": replay["footer"]}
    path = Path(args.output or f"ludus-match-{args.match}.replay.gz")
    try:
        path.write_bytes(encode_replay(document))  # the site's export, byte for byte: `replay verify` reads it
    except OSError as exc:
        raise ClientError(f"cannot write {path}: {exc.strerror}") from None
    out.print(f"match {args.match}: {len(actions)} actions written to {path}")
    return 0


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(prog="ludus", description="The Ludus client for bot authors (docs/api.md). "
                                  "Server and token: `ludus login`, or LUDUS_URL and LUDUS_TOKEN.")
    commands = top.add_subparsers(dest="command", required=True)
    p = commands.add_parser("login", help="get your API token and save it (mode 0600)")
    p.add_argument("--url", help=f"the server (default: LUDUS_URL, the saved one, or {config.DEFAULT_URL})")
    p.add_argument("--username")
    p.add_argument("--password-stdin", action="store_true", help="read the password from stdin (for scripts)")
    p.set_defaults(run=login)
    p = commands.add_parser("upload", help="upload a new version of your bot (.py or .zip)")
    p.add_argument("file")
    p.add_argument("--game", required=True)
    p.add_argument("--name", help="the bot's name (default: the file's name)")
    p.add_argument("--description", default="")
    p.add_argument("--wait", action="store_true", help="wait for the sandbox's verdict; exit 1 when rejected")
    p.add_argument("--timeout", type=float, default=600, help="seconds --wait waits (default 600)")
    p.set_defaults(run=upload)
    p = commands.add_parser("bots", help="your bots (or --owner's, or --all)")
    p.add_argument("--owner")
    p.add_argument("--all", action="store_true")
    p.set_defaults(run=bots)
    p = commands.add_parser("match", help="request a ladder match for your bot and follow it live")
    p.add_argument("bot", help="your bot: NAME, OWNER/NAME, NAME@N or a version id")
    p.add_argument("--ladder", required=True, help="the ladder's name or id")
    p.add_argument("--vs", nargs="+", required=True, help="the opponents, like BOT")
    p.add_argument("--rated", action="store_true", help="a rated match (the ladder's organiser and staff only)")
    p.add_argument("--timeout", type=float, default=900, help="seconds to follow the match (default 900)")
    p.set_defaults(run=match)
    p = commands.add_parser("branch", help="play a finished match on from a step: other bots, another move "
                                           "(docs/branches.md)")
    p.add_argument("match", type=int)
    p.add_argument("--step", type=int, required=True, help="keep the first K steps (with --force: K - 1)")
    p.add_argument("--seat", action="append", default=[], metavar="N=BOT",
                   help="seat N (counted from 1, as on the pages) takes BOT (repeatable)")
    p.add_argument("--force", type=int, help="play this option (an index into step K's options) as step K")
    p.add_argument("--games", type=int, default=1, help="games (more than 1 needs --resample)")
    p.add_argument("--resample", action="store_true", help="re-deal what no seat has seen, per game")
    p.add_argument("--seed", type=int, help="the seed the re-dealt futures derive from")
    p.add_argument("--timeout", type=float, default=900, help="seconds to follow each branch (default 900)")
    p.set_defaults(run=branch)
    p = commands.add_parser("test", help="is NEW better than BASE? a version test on duplicate deals, stopped by an "
                                         "SPRT (docs/version-tests.md); exit 0 when it passes")
    p.add_argument("new", help="a version id, or NAME, OWNER/NAME, NAME@N with --game")
    p.add_argument("base", help="the version to beat, likewise")
    p.add_argument("--game", help="the game (needed for names, and when both are built-in)")
    p.add_argument("--players", type=int, help="players per game (default: 2 plus the field)")
    p.add_argument("--field", help="the other seats, comma-separated built-in bots or version ids (default: greedy)")
    p.add_argument("--d0", type=float, default=0.0, help="H0: new's score-share lead (default 0)")
    p.add_argument("--d1", type=float, default=0.05, help="H1: new's score-share lead (default 0.05)")
    p.add_argument("--alpha", type=float, default=0.05)
    p.add_argument("--beta", type=float, default=0.05)
    p.add_argument("--max-games", type=int, default=2000, help="the game cap (default 2000)")
    p.add_argument("--wait", action="store_true", help="follow it to its verdict")
    p.add_argument("--timeout", type=float, default=3600, help="seconds --wait waits (default 3600)")
    p.set_defaults(run=test)
    p = commands.add_parser("ladders", help="the ladders")
    p.add_argument("--game")
    p.set_defaults(run=ladders)
    p = commands.add_parser("standings", help="a ladder's table")
    p.add_argument("ladder", help="the ladder's name or id")
    p.set_defaults(run=standings)
    p = commands.add_parser("replay", help="download a finished match's replay file")
    p.add_argument("match", type=int)
    p.add_argument("-o", "--output", help="the file (default: ludus-match-ID.replay.gz)")
    p.set_defaults(run=replay)
    return top


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        return int(args.run(args))
    except ClientError as exc:
        err.print(f"ludus: {exc}", markup=False)
        return 1
    except EOFError:
        err.print("ludus: the input ended before the username or the password")
        return 1
    except OSError as exc:  # the config file or an output file: a full disk, a read-only home
        err.print(f"ludus: {exc}", markup=False)
        return 1
    except KeyboardInterrupt:
        err.print("ludus: interrupted")
        return 130


if __name__ == "__main__":
    sys.exit(main())
