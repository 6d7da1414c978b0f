"""`python -m engine` driven as a user would: with arguments, files and piped stdin.

The end-to-end cases run `python -m engine` in a subprocess; the many bad-input rows call the same `main()`
in-process (same parser, same exit codes, same stderr line) to keep the fast loop fast.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from engine.registry import load_game

ROOT = Path(__file__).resolve().parents[2]


def run_cli(*args: str, stdin: str = "", timeout: float = 120, hash_seed: str | None = None
            ) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONHASHSEED=hash_seed) if hash_seed is not None else None
    return subprocess.run([sys.executable, "-m", "engine", *args], input=stdin, capture_output=True, text=True,
                          cwd=ROOT, timeout=timeout, env=env)


def run_main(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    """engine.cli.main in this process, with stdin, stdout and stderr captured; SystemExit becomes the code."""
    from engine.cli import main

    out, err = io.StringIO(), io.StringIO()
    old_stdin = sys.stdin
    sys.stdin = io.StringIO(stdin)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main(list(args))
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else 1
    finally:
        sys.stdin = old_stdin
    return subprocess.CompletedProcess(list(args), code, out.getvalue(), err.getvalue())


def players_of(game_name: str) -> str:
    return str(load_game(game_name).min_players)


def simulate_json(game_name: str, *extra: str, runner: Any = run_main) -> dict[str, Any]:
    done = runner("simulate", "--game", game_name, "--players", players_of(game_name), "--games", "3",
                   "--seed", "11", "--bots", "random,greedy", "--json", *extra)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)  # type: ignore[no-any-return]


def test_simulate_json_twice_gives_the_same_digest(game_name: str) -> None:
    """Two processes with different string-hash seeds: no set or dict order may leak into a game."""
    first = simulate_json(game_name, runner=lambda *a: run_cli(*a, hash_seed="1"))
    second = simulate_json(game_name, runner=lambda *a: run_cli(*a, hash_seed="2"))
    assert first["digest"] == second["digest"]
    for key in ("games", "decisions", "seconds", "games_per_sec", "decisions_per_sec", "wins_by_seat",
                "wins_by_bot", "mean_score_by_bot", "digest"):
        assert key in first, f"--json output lacks {key!r}"
    assert first["games"] == 3 and first["decisions"] > 0
    assert sum(first["wins_by_seat"]) >= 3
    assert set(first["wins_by_bot"]) == {"random", "greedy"}


def test_simulate_digest_depends_on_the_seed_and_the_rotation(game_name: str) -> None:
    base = simulate_json(game_name)["digest"]
    assert simulate_json(game_name, "--seed", "12")["digest"] != base
    assert simulate_json(game_name, "--no-rotate")["digest"] != base


def test_simulate_prints_a_readable_table_without_json(game_name: str) -> None:
    done = run_main("simulate", "--game", game_name, "--players", players_of(game_name), "--games", "2",
                    "--bots", "greedy,random")
    assert done.returncode == 0, done.stderr
    assert "win rate" in done.stdout and "greedy" in done.stdout and "digest:" in done.stdout


def test_marine_simulate_counts_wins_by_animal_food_chain_place_and_setup_dominance() -> None:
    done = run_main("simulate", "--game", "marine", "--players", "3", "--games", "4", "--bots", "random", "--json")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    balance, games, players = result["balance"], result["games"], result["players"]
    for kind in ("animal", "food_chain_place", "setup_dominance"):
        counts = balance[kind].values()
        assert sum(c["seats"] for c in counts) == games * players, kind
        assert sum(c["wins"] for c in counts) == sum(result["wins_by_seat"]), kind  # Marine ranks never tie
    assert sorted(balance["food_chain_place"]) == ["1", "2", "3"]
    assert balance["food_chain_place"]["1"]["seats"] == games
    # at setup the animal highest on the food chain dominates all six element types, the others none
    assert {k: c["seats"] for k, c in balance["setup_dominance"].items()} == {"0 types": 8, "6 types": 4}
    assert balance["setup_dominance"]["6 types"]["wins"] == balance["food_chain_place"]["1"]["wins"]
    assert result["win_share_by_seat"] == [w / games for w in result["wins_by_seat"]]
    table = run_main("simulate", "--game", "marine", "--players", "3", "--games", "4", "--bots", "random")
    assert "wins by food chain place: 1 " in table.stdout and "wins by setup dominance: 0 types" in table.stdout


def test_a_game_without_balance_labels_reports_an_empty_balance() -> None:
    assert simulate_json("evolution")["balance"] == {}


BAD_SIMULATE_ARGS = [
    (["--game", "no_such_game"], "unknown game 'no_such_game'"),
    (["--players", "99"], "99"),
    (["--players", "1"], "got 1"),
    (["--players", "four"], "invalid int value: 'four'"),
    (["--bots", "random,clever"], "unknown bot 'clever'"),
    (["--bots", "greedy_epsilon"], "unknown bot 'greedy_epsilon'"),
    (["--bots", ""], "--bots"),
    (["--option", "no_such_option=1"], "no_such_option"),
    (["--option", "missing_equals"], "key=value"),
    (["--options", "[1, 2]"], "JSON object"),
    (["--options", "{oops"], "not valid JSON"),
    (["--games", "0"], "--games"),
    (["--frobnicate"], "unrecognized arguments: --frobnicate"),
]


@pytest.mark.parametrize(("args", "message"), BAD_SIMULATE_ARGS, ids=[" ".join(a) for a, _ in BAD_SIMULATE_ARGS])
def test_a_bad_simulate_argument_exits_2_with_one_clear_line(args: list[str], message: str) -> None:
    done = run_main("simulate", "--games", "1", *args)
    assert done.returncode == 2
    assert message in done.stderr
    assert "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert done.stdout == ""


def test_an_out_of_range_option_value_exits_2_naming_it(game_name: str) -> None:
    specs = load_game(game_name).options_schema
    key, spec = next((k, s) for k, s in sorted(specs.items()) if s.type == "int" and s.maximum is not None)
    assert spec.maximum is not None
    done = run_main("simulate", "--game", game_name, "--games", "1", "--option", f"{key}={spec.maximum + 1}")
    assert done.returncode == 2 and key in done.stderr and "Traceback" not in done.stderr


def saved_state(game_name: str, steps: int = 25) -> dict[str, Any]:
    game = load_game(game_name)
    state = game.new_state(game.min_players, 5)
    for _ in range(steps):
        if state.decision() is None:
            break
        state.choose(0)
    return state.to_dict()


def test_show_prints_the_view_and_the_pending_decision(game_name: str, tmp_path: Path) -> None:
    path = tmp_path / "state.json"
    path.write_text(json.dumps({"game": game_name, "state": saved_state(game_name)}))
    done = run_cli("show", str(path))
    assert done.returncode == 0, done.stderr
    assert "to act:" in done.stdout and "[0]" in done.stdout
    seat_view = run_main("show", str(path), "--seat", "1")
    assert seat_view.returncode == 0, seat_view.stderr


def test_show_says_when_forced_steps_are_pending(tmp_path: Path) -> None:
    """A file may hold a position before forced steps (the docs' forced attack): no decision yet, and show says so."""
    path = tmp_path / "forced.json"
    path.write_text(json.dumps({"phase": "feeding", "seed": 1, "seats": [
        {"species": [{"traits": ["Carnivore"], "body_size": 3, "population": 2}]}, {"species": [{}]}]}))
    done = run_main("show", str(path), "--game", "evolution")
    assert done.returncode == 0, done.stderr
    assert "forced steps are pending" in done.stdout and "to act:" not in done.stdout
    advanced = run_main("show", str(path), "--game", "evolution", "--advance")
    assert advanced.returncode == 0, advanced.stderr
    first = json.loads(advanced.stdout.splitlines()[0])
    assert first["event"] == "attack" and "forced steps are pending" not in advanced.stdout
    assert "to act:" in advanced.stdout


def test_show_reads_a_raw_state_dict_with_game(game_name: str, tmp_path: Path) -> None:
    path = tmp_path / "raw.json"
    path.write_text(json.dumps(saved_state(game_name)))
    assert run_main("show", str(path), "--game", game_name).returncode == 0
    without_game = run_main("show", str(path))
    assert without_game.returncode == 2 and "--game" in without_game.stderr


@pytest.mark.parametrize(("content", "message"), [
    ("{not json", "is not JSON"),
    ("[1, 2, 3]", "JSON object"),
    ('{"game": "no_such_game", "state": {}}', "unknown game"),
    ('{"game": "GAME", "state": {"bogus": 1}}', ""),
    ('{"game": "GAME", "state": []}', ""),
], ids=["not-json", "not-object", "unknown-game", "bad-state", "state-not-object"])
def test_show_rejects_a_bad_file_with_exit_2(game_name: str, tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(content.replace("GAME", game_name))
    done = run_main("show", str(path))
    assert done.returncode == 2
    assert message in done.stderr and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr


def test_show_rejects_a_missing_file(tmp_path: Path) -> None:
    done = run_main("show", str(tmp_path / "nope.json"))
    assert done.returncode == 2 and "cannot read" in done.stderr


def test_play_driven_by_piped_stdin_runs_a_game_to_the_end(game_name: str) -> None:
    done = run_cli("play", "--game", game_name, "--players", players_of(game_name), "--seat", "0",
                   "--bots", "greedy", "--seed", "3", stdin="x\n999\n" + "0\n" * 20_000)
    assert done.returncode == 0, done.stderr
    assert "please type a number" in done.stdout
    assert "game over" in done.stdout
    assert "your choice" in done.stdout


def test_play_exits_cleanly_on_eof(game_name: str) -> None:
    done = run_main("play", "--game", game_name, "--players", players_of(game_name), "--seed", "3", stdin="")
    assert done.returncode == 0, done.stderr
    assert "bye" in done.stdout and "Traceback" not in done.stderr


def test_play_rejects_a_seat_out_of_range(game_name: str) -> None:
    done = run_main("play", "--game", game_name, "--players", players_of(game_name), "--seat", "9")
    assert done.returncode == 2 and "--seat" in done.stderr


def test_show_rejects_a_seat_that_is_not_in_the_state(game_name: str, tmp_path: Path) -> None:
    path = tmp_path / "state.json"
    path.write_text(json.dumps({"game": game_name, "state": saved_state(game_name)}))
    done = run_main("show", str(path), "--seat", "42")
    assert done.returncode == 2 and "--seat" in done.stderr and "Traceback" not in done.stderr


def test_a_bad_argument_exits_2_in_a_real_subprocess_too() -> None:
    done = run_cli("simulate", "--game", "no_such_game")
    assert done.returncode == 2 and "unknown game 'no_such_game'" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr


def test_seat_rotation_moves_the_first_bot_one_seat_per_game() -> None:
    from engine.cli.simulate import base_lineup, lineup_for_game

    base = base_lineup(["greedy", "random"], 4)
    assert base == ["greedy", "random", "greedy", "random"]
    solo = base_lineup(["greedy", "random", "random", "random"], 4)
    assert [lineup_for_game(solo, g, rotate=True).index("greedy") for g in range(6)] == [0, 1, 2, 3, 0, 1]
    assert lineup_for_game(solo, 3, rotate=False) == tuple(solo)
