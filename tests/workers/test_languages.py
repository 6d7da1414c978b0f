"""Bots in JavaScript, C++, Rust and Java (docs/bots.md, "Languages"): each starter kit uploaded through the API,
built in its own sandbox, validated, and played in a real match against the built-in greedy bot; builds that loop,
fill the disk or reach for the network end as build faults."""

from __future__ import annotations

import io
import shutil
from pathlib import Path
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.test import Client
from django.urls import reverse
from testkit import zipped

from tournaments.builtins import ensure_builtin
from tournaments.languages import read_manifest
from tournaments.models import BotVersion, Ladder, Match
from tournaments.new_matches import create_match
from tournaments.uploads import UploadLimits
from workers.runner import run_match
from workers.sandbox.build import BuildConfig, build_bot
from workers.sandbox.seat import SandboxConfig, SandboxedSeat
from workers.validation import validate_version

pytestmark = [
    pytest.mark.sandbox,
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("bwrap") is None, reason="bwrap is not installed: run `make sysdeps`"),
]

KITS = Path(__file__).resolve().parents[2] / "examples" / "bots"
TOOLS = {"javascript": "node", "cpp": "g++", "rust": "rustc", "java": "javac"}
GAMES = ("evolution", "marine")



def kit(language: str) -> bytes:
    return zipped({p.name: p.read_bytes() for p in (KITS / language).iterdir()
                   if p.is_file() and p.name != "README.md"})


def needs(language: str) -> None:
    if shutil.which(TOOLS[language], path="/usr/bin:/bin") is None:
        pytest.fail(f"{TOOLS[language]} is not installed: run `make sysdeps` (make test does)")  # never a silent pass


def upload(owner: Any, name: str, game: str, data: bytes) -> BotVersion:
    client = Client()
    client.force_login(owner)
    answer = client.post("/api/bots/upload/", {"name": name, "game": game,
                                               "file": SimpleUploadedFile(f"{name}.zip", data)})
    assert answer.status_code == 201, answer.content
    version = BotVersion.objects.get(pk=answer.json()["id"])
    assert version.status == "pending", version.validation_log
    return version


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("language", list(TOOLS))
def test_each_starter_kit_builds_validates_and_plays_greedy(alice: Any, language: str, game: str) -> None:
    needs(language)
    version = upload(alice, f"kit-{language}", game, kit(language))
    assert validate_version(version.pk) == "active", BotVersion.objects.get(pk=version.pk).validation_log
    version.refresh_from_db()
    assert version.language == language and version.toolchain and "not installed" not in version.toolchain
    manifest = read_manifest((KITS / language / "ludus.toml").read_bytes())
    assert bool(version.artifact) == manifest.compiled
    assert f"Language: {language}" in version.validation_log
    ladder = Ladder.objects.create(name=f"kits {language} {game}", game=game, players_per_match=2)
    match = create_match(ladder, [version, ensure_builtin("greedy")], seed=5)
    assert run_match(match.pk) == "finished"
    match.refresh_from_db()
    seats = list(match.seats.order_by("number"))
    assert match.status == Match.Status.FINISHED and not seats[0].forfeited, seats[0].log
    # the API says which language and toolchain built it
    client = Client()
    client.force_login(alice)
    row = client.get(f"/api/versions/{version.pk}/").json()
    assert row["language"] == language and row["toolchain"] == version.toolchain
    assert row["artifact_sha256"] == version.artifact_sha256
    page = client.get(reverse("pages:version", args=[version.pk])).content.decode()
    assert f'<dd id="version-language">{language} <span class="muted">({version.toolchain}' in page


def test_a_build_error_is_shown_with_the_compilers_message_the_command_and_the_limits() -> None:
    needs("cpp")
    source = zipped({"ludus.toml": b'language = "cpp"\n', "main.cpp": b"int main() { return nope; }\n"})
    built = build_bot(source, "bot.zip", read_manifest(b'language = "cpp"\n'), UploadLimits())
    assert not built.ok and not built.artifact
    assert "nope" in built.log and "was not declared" in built.log and "g++ -O2 -std=c++20 -o bot main.cpp" in built.log
    assert "Build failed: the build command exited with status 1" in built.log and "no network" in built.log


def build_with(command: str, config: BuildConfig) -> Any:
    manifest = read_manifest(f'language = "cpp"\nbuild = "{command}"\n'.encode())
    source = zipped({"ludus.toml": b'language = "cpp"\n', "main.cpp": b""})
    return build_bot(source, "bot.zip", manifest, UploadLimits(), config)


def test_a_build_that_loops_is_killed_at_its_timeout() -> None:
    built = build_with("while :; do :; done", BuildConfig(wall_seconds=2, cpu_seconds=60))
    assert not built.ok and "timed out: the build ran for over 2 s and was killed" in built.log


def test_a_build_that_spins_is_killed_at_its_cpu_limit() -> None:
    built = build_with("while :; do :; done", BuildConfig(wall_seconds=30, cpu_seconds=1))
    assert not built.ok and "Build failed:" in built.log and "status" in built.log


def test_a_build_that_fills_the_disk_fails_on_its_tmpfs() -> None:
    built = build_with("head -c 100000000 /dev/zero > fill", BuildConfig(build_bytes=16 << 20))
    assert not built.ok and ("No space left on device" in built.log or "File size limit" in built.log), built.log


def test_a_build_that_tries_the_network_finds_none() -> None:
    probe = ("python3 -c 'import socket; socket.create_connection((\\\"1.1.1.1\\\", 80), timeout=3)'")
    built = build_with(probe, BuildConfig())
    # no inet socket (the seccomp filter, as in a seat); behind it, a network namespace with no route out
    assert not built.ok and "Address family not supported by protocol" in built.log, built.log


def test_a_build_that_floods_its_output_keeps_the_head_and_tail_of_it() -> None:
    built = build_with("yes ludus | head -c 5000000 >&2; false", BuildConfig(log_bytes=4096))
    assert not built.ok and len(built.log) < 8192 and "cut to its head and tail" in built.log


@pytest.mark.django_db(transaction=True)  # the runner's heartbeat renews the lease from a connection of its own
@pytest.mark.parametrize("language", ["cpp", "javascript"])
def test_try_bot_plays_a_kits_folder(language: str) -> None:
    needs(language)
    out = io.StringIO()
    call_command("try_bot", str(KITS / language), "--game", "marine", "--games", "1", stdout=out)
    assert "your bot's faults: none" in out.getvalue(), out.getvalue()
    version = BotVersion.objects.get(bot__owner__username="tryout")
    assert version.language == language and bool(version.artifact) == (language == "cpp")


@pytest.mark.django_db(transaction=True)
def test_try_bot_shows_why_a_folder_did_not_build(tmp_path: Path) -> None:
    needs("cpp")
    (tmp_path / "ludus.toml").write_text('language = "cpp"\n')
    (tmp_path / "main.cpp").write_text("int main() { return nope; }\n")
    out = io.StringIO()
    call_command("try_bot", str(tmp_path), "--game", "marine", "--games", "1", stdout=out)
    assert "it did not build" in out.getvalue() and "was not declared" in out.getvalue(), out.getvalue()


@pytest.mark.django_db(transaction=True)
def test_a_version_that_does_not_build_is_rejected_with_the_compilers_log(alice: Any) -> None:
    needs("cpp")
    source = zipped({"ludus.toml": b'language = "cpp"\n', "main.cpp": b"int main() { return nope; }\n"})
    version = upload(alice, "broken-cpp", "evolution", source)
    assert validate_version(version.pk) == "rejected"
    version.refresh_from_db()
    log = version.validation_log
    assert "Build: g++ -O2 -std=c++20 -o bot main.cpp" in log and "was not declared" in log and "no network" in log
    assert "Verdict: rejected: the bot did not build" in log and not version.artifact
    assert not Match.objects.exists()  # no smoke match was played


def test_the_jvm_gets_its_start_up_allowance_at_hello_and_node_and_the_jvm_wait_frozen() -> None:
    base = SandboxConfig()
    manifests = [read_manifest((KITS / name / "ludus.toml").read_bytes()) for name in ("java", "javascript", "cpp")]
    java, node, cpp = (SandboxedSeat(b"", "bot.zip", base, "bwrap", manifest) for manifest in manifests)
    try:
        assert java.config.startup_ms == base.startup_ms + 3000 and cpp.config.startup_ms == base.startup_ms
        assert java._strict and node._strict and not cpp._strict
    finally:
        for seat in (java, node, cpp):
            seat.close()
