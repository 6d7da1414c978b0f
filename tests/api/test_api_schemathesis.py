"""Schemathesis, as a client author runs it: its own command line against a live server, every check, positive and
negative requests, signed in as alice (who owns bots, versions and seats in the world of apiworld.py).

A clean run means the schema tells the truth: every request it allows is accepted, every request it forbids is
refused with a 4xx, every answer has a documented status, content type and shape, and public reads say that their
authentication is optional. schemathesis.toml beside this file lists the rules OpenAPI cannot state (frames'
start < stop, a file's content, existing ids in a body), where a schema-valid request may get a 400. The seed is
printed; LUDUS_SCHEMATHESIS_SEED=<seed> replays a run.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from apiworld import World

pytestmark = [pytest.mark.slow, pytest.mark.integration, pytest.mark.django_db(transaction=True)]

CONFIG = Path(__file__).with_name("schemathesis.toml")
MAX_EXAMPLES = 5  # per operation in the fuzzing phase: about 2,500 requests, some 40 s of CPU


def seed() -> int:
    """A fixed seed, so CI is deterministic; LUDUS_SCHEMATHESIS_SEED=N replays run N, `random` explores a new one
    (make test-nightly)."""
    chosen = os.environ.get("LUDUS_SCHEMATHESIS_SEED") or str(FIXED_SEED)
    return random.SystemRandom().randrange(2**31) if chosen == "random" else int(chosen)


FIXED_SEED = 22


def test_schemathesis_with_every_check_finds_no_disagreement(world: World, live_server: Any, tmp_path: Path) -> None:
    run_seed = seed()
    print(f"schemathesis seed {run_seed}: replay with LUDUS_SCHEMATHESIS_SEED={run_seed}")
    command = [str(Path(sys.executable).with_name("st")), "--config-file", str(CONFIG), "run",
               f"{live_server.url}/api/schema/?format=json", "--checks", "all", "--mode", "all",
               "--seed", str(run_seed), "--max-examples", str(MAX_EXAMPLES), "--workers", "1", "--no-shrink",
               "--suppress-health-check", "all", "--request-timeout", "60",
               "-H", f"Authorization: Token {world.tokens['owner']}"]
    # One worker: st's workers are threads, and Hypothesis is not thread-safe (two runs with two failed inside it: a
    # dict changed size while iterated, an AST constructor's recursion depth), whatever our answers.
    run = subprocess.run(command, capture_output=True, text=True, timeout=900, cwd=tmp_path,
                         env=dict(os.environ, NO_COLOR="1"))
    assert run.returncode == 0, f"seed {run_seed}\n{run.stdout[-20000:]}\n{run.stderr[-3000:]}"
