"""`ludus match`: find the ladder and the bots by name, request the match, follow its live feed, print the result."""

from __future__ import annotations

import time
from typing import Any

from rich.console import Console
from rich.table import Table

from ludus_client.http import Api, ClientError

DONE = ("finished", "failed", "cancelled")


def find_ladder(api: Api, ref: str) -> dict[str, Any]:
    """A ladder by id or by name."""
    if ref.isdigit():
        return dict(api.get(f"/api/ladders/{ref}/"))
    found = [ladder for ladder in api.pages("/api/ladders/") if ladder["name"] == ref]
    if not found:
        raise ClientError(f"no ladder is called {ref!r}; `ludus ladders` lists them")
    return found[0]


def find_version(api: Api, ref: str, game: str) -> dict[str, Any]:
    """A bot version: `ID` (a version id), `NAME` or `OWNER/NAME` (its latest active version), `...@N` (version N)."""
    if ref.isdigit():
        return dict(api.get(f"/api/versions/{ref}/"))
    name, _, number = ref.partition("@")
    owner, _, name = name.rpartition("/")
    bots = [bot for bot in api.pages("/api/bots/", owner=owner or None)
            if bot["name"] == name and bot["game"] in (game, "")]  # "": a built-in, for every game
    if len(bots) != 1:
        where = f" of {owner}" if owner else ""
        problem = (f"no {game} bot{where} is called {name!r}" if not bots else
                   f"{len(bots)} bots are called {name!r}: {', '.join(b['owner'] + '/' + name for b in bots)}; "
                   f"say OWNER/NAME")
        raise ClientError(problem)
    versions = list(api.pages("/api/versions/", bot=bots[0]["id"], status=None if number else "active"))
    chosen = [v for v in versions if str(v["number"]) == number] if number else versions[-1:]
    if not chosen:
        raise ClientError(f"{ref} has no {'version ' + number if number else 'active version'}")
    return chosen[0]


def request_match(api: Api, ladder_ref: str, bot_refs: list[str], rated: bool) -> dict[str, Any]:
    ladder = find_ladder(api, ladder_ref)
    seats = [find_version(api, ref, ladder["game"])["id"] for ref in bot_refs]
    return dict(api.post("/api/matches/", json={"ladder": ladder["id"], "seats": seats, "rated": rated}))


def follow(api: Api, match_id: int, console: Console, timeout_s: float) -> str:
    """Follow the match's feed (reconnecting when a connection's time is up) until it ends; its final status."""
    deadline = time.monotonic() + timeout_s
    with console.status(f"match {match_id}: waiting for a worker") as status:
        while time.monotonic() < deadline:
            for line in api.lines(f"/api/matches/{match_id}/feed/", timeout_s=max(1.0, deadline - time.monotonic())):
                if line["type"] == "action":
                    status.update(f"match {match_id}: step {line['step']}")
                elif line["type"] == "end":
                    return str(line["status"])
                elif line["type"] == "error":
                    raise ClientError(f"match {match_id}: its feed stopped: {line['detail']}")
    raise ClientError(f"match {match_id} did not end within {timeout_s:.0f} s; follow it at "
                      f"{api.url}/replays/{match_id}/")


def result_table(match: dict[str, Any]) -> Table:
    table = Table(title=f"match {match['id']}: {match['status']}")
    for column in ("seat", "bot", "owner", "rank", "score", "faults"):
        table.add_column(column)
    for seat in match["seats"]:
        bot = seat["bot_name"] if seat.get("version") is None else f"{seat['bot_name']}@{seat['version']}"
        forfeit = " (forfeited)" if seat.get("forfeited") else ""
        table.add_row(str(seat["number"]), bot, str(seat.get("owner") or ""), str(seat.get("rank") or ""),
                      str(seat.get("score") if seat.get("score") is not None else ""), f"{seat['faults']}{forfeit}")
    return table
