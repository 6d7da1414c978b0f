"""manage.py replay verify ID|--all, replay show ID, replay export ID [-o FILE], replay void ID --reason TEXT; ID: a
match id or an exported file (void: a match id)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from engine import InvalidOptions, load_game
from engine.cli.common import Renderer, load_renderer
from replays.format import ReplayFormatError, decode_replay, encode_replay
from replays.frames import frames
from replays.links import viewer_url
from replays.models import Replay
from replays.verification import NotVerifying, void_unverified
from replays.verify import ReplayMismatch, verify_document
from tournaments.numbers import is_whole


def load_document(ref: str) -> dict[str, Any]:
    """The replay document of match `ref`, or of the exported file at path `ref` (that works without a database)."""
    if is_whole(ref):
        replay = Replay.objects.filter(match_id=int(ref)).first()
        if replay is None:
            raise CommandError(f"match {ref} has no replay (is it finished?)")
        return replay.document()
    path = Path(ref)
    if not path.is_file():
        raise CommandError(f"{ref!r} is neither a match id nor a replay file")
    try:
        return decode_replay(path.read_bytes())
    except ReplayFormatError as exc:
        raise CommandError(f"{ref}: {exc}") from exc


class Command(BaseCommand):
    help = "Verify, show or export replays. Verification re-simulates the action log with the engine."

    def add_arguments(self, parser: CommandParser) -> None:
        sub = parser.add_subparsers(dest="action", required=True)
        verify = sub.add_parser("verify", help="re-simulate; exit 1 on any mismatch")
        verify.add_argument("ref", nargs="?", help="match id or exported file")
        verify.add_argument("--all", action="store_true", help="every stored replay")
        show = sub.add_parser("show", help="print the game step by step")
        show.add_argument("ref", help="match id or exported file")
        show.add_argument("--seat", type=int, default=None, help="show this seat's views (default: omniscient)")
        show.add_argument("--start", type=int, default=0, help="first step shown (step 0 is the start)")
        show.add_argument("--stop", type=int, default=None, help="show the steps before this one")
        show.add_argument("--no-board", action="store_true", help="decisions only, no board between them")
        export = sub.add_parser("export", help="write one self-contained replay file")
        export.add_argument("ref", help="match id")
        export.add_argument("-o", "--output", default=None, help="file (default: match-ID.ludus-replay.json.gz)")
        void = sub.add_parser("void", help="revert the result of a match whose replay is still verifying and whose "
                                           "file is lost for good (docs/operations.md)")
        void.add_argument("ref", type=int, help="match id")
        void.add_argument("--reason", required=True, help="why, kept as the match's error and the replay's flag")

    def handle(self, *args: Any, **opts: Any) -> None:
        getattr(self, f"handle_{opts['action']}")(opts)

    def handle_verify(self, opts: dict[str, Any]) -> None:
        if opts["all"] == bool(opts["ref"]):
            raise CommandError("give a match id (or file), or --all")
        refs = [str(m) for m in Replay.objects.order_by("match_id").values_list("match_id", flat=True)] \
            if opts["all"] else [opts["ref"]]
        bad = 0
        for ref in refs:
            try:
                outcome = verify_document(load_document(ref))
            except ReplayMismatch as exc:
                bad += 1
                self.stdout.write(f"{ref}: MISMATCH: {exc}")
            else:
                self.stdout.write(f"{ref}: ok (ranks {outcome['ranks']}, scores {outcome['scores']})")
        self.stdout.write(f"{len(refs) - bad} verified, {bad} mismatched")
        if bad:
            raise CommandError(f"{bad} replay(s) do not reproduce their outcome", returncode=1)

    def handle_void(self, opts: dict[str, Any]) -> None:
        try:
            void_unverified(opts["ref"], opts["reason"])
        except NotVerifying as exc:
            raise CommandError(f"{exc}: only a replay still verifying can be voided; a verified result stands") from exc
        self.stdout.write(f"match {opts['ref']}: result reverted, replay flagged ({opts['reason']}); requeue the match "
                          "to play it again")

    def handle_show(self, opts: dict[str, Any]) -> None:
        document = load_document(opts["ref"])
        header, footer = document["header"], document["footer"]
        check_show_range(opts, header["players"], len(document["actions"]))
        seats = ", ".join(f"{s['seat']}: {s.get('bot')}@{s.get('version')}" for s in header["seats"])
        self.stdout.write(f"{header['game']} (rules {header['rules_version']}), seed {header['seed']}, "
                          f"{header['players']} players: {seats}")
        self.stdout.write(f"options: {json.dumps(header['options'], sort_keys=True)}")
        self.stdout.write("step N is the Nth decision and the board after it; step 0 is the start")
        try:
            render = load_renderer(load_game(header["game"]))
        except InvalidOptions as exc:
            raise CommandError(str(exc)) from exc
        try:
            steps = frames(document, opts["start"], opts["stop"], opts["seat"])
        except ReplayMismatch as exc:
            raise CommandError(f"the replay does not re-simulate: {exc}") from exc
        match_id = header.get("match") if is_whole(opts["ref"]) else None
        for frame in steps:
            self._write_frame(frame, render, opts["no_board"], match_id, opts["seat"])
        self.stdout.write(f"outcome: {json.dumps(footer['outcome'], sort_keys=True)}")
        self.stdout.write(f"faults: {footer.get('faults')}  forfeited: {footer.get('forfeited')}")
        if match_id is not None:
            self.stdout.write(f"viewer: {viewer_url(match_id, view=opts['seat'])}")

    def _write_frame(self, frame: dict[str, Any], render: Renderer, no_board: bool,
                     match_id: int | None, seat: int | None) -> None:
        action = frame["action"]
        if action is None:
            self.stdout.write("step 0: the start")
        else:
            fault = f"  FAULT: {action['fault']}" if action.get("fault") else ""
            self.stdout.write(f"  -> seat {action['seat']} chose {action['choice']} ({action.get('ms', 0)} ms){fault}")
            if fault and match_id is not None:
                view = seat if seat is not None else action["seat"]
                self.stdout.write(f"     {viewer_url(match_id, frame['step'], view)}")
            for event in frame["events"]:
                self.stdout.write(f"     event: {json.dumps(event, sort_keys=True)}")
        if not no_board:
            self.stdout.write(render(frame["view"]))
        decision = frame["decision"]
        if decision is None:
            self.stdout.write("game over")
            return
        self.stdout.write(f"step {frame['step'] + 1}: seat {decision['seat']} decides {decision['kind']}"
                          + (f" - {decision['prompt']}" if decision.get("prompt") else ""))
        for index, option in enumerate(decision.get("options", [])):
            self.stdout.write(f"     [{index}] {json.dumps(option, sort_keys=True)}")

    def handle_export(self, opts: dict[str, Any]) -> None:
        if not is_whole(opts["ref"]):
            raise CommandError("export takes a match id")
        document = load_document(opts["ref"])
        data = encode_replay(document)
        output = opts["output"] or f"match-{opts['ref']}.ludus-replay.json.gz"
        if output == "-":
            sys.stdout.buffer.write(data)
            return
        try:
            Path(output).write_bytes(data)
        except OSError as exc:
            raise CommandError(f"cannot write {output}: {exc.strerror or exc}") from exc
        self.stdout.write(f"wrote {output} ({len(data)} bytes)")


def check_show_range(opts: dict[str, Any], players: int, actions: int) -> None:
    """One clear line for a seat the game does not have or a step range outside the game."""
    seat, start, stop = opts["seat"], opts["start"], opts["stop"]
    if seat is not None and not 0 <= seat < players:
        raise CommandError(f"--seat {seat}: this game has seats 0 to {players - 1}")
    if not 0 <= start <= actions:
        raise CommandError(f"--start {start}: this game has steps 0 to {actions}")
    if stop is not None and stop <= start:
        raise CommandError(f"--stop {stop} must be greater than --start {start}")
