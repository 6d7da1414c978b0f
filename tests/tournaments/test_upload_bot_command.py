"""manage.py upload_bot: upload, then the validation verdict and log; bad input is a CommandError."""

from __future__ import annotations

import io
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from django.core.management import CommandError, call_command

from tournaments.models import Bot, BotVersion

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "bots" / "evolution_bot.py"
FIXTURES = Path(__file__).resolve().parent / "fixtures"
needs_bwrap = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bwrap is not installed: run `make sysdeps`")


def upload_bot(path: Path | str, *extra: str, owner: str = "alice", name: str = "hungry",
               game: str = "evolution") -> str:
    out = io.StringIO()
    call_command("upload_bot", str(path), "--owner", owner, "--name", name, "--game", game, *extra, stdout=out)
    return out.getvalue()


@pytest.fixture
def embedded(settings: Any) -> None:
    settings.CELERY_BROKER_URL = None  # no broker: the command validates in its own process


@needs_bwrap
@pytest.mark.sandbox
@pytest.mark.django_db
def test_it_prints_the_id_then_the_verdict_and_log(alice: Any, embedded: None) -> None:
    output = upload_bot(EXAMPLE)
    version = BotVersion.objects.get(builtin="")  # the smoke match also seats built-ins
    assert output.splitlines()[0] == f"uploaded alice/hungry version 1: id {version.pk}"
    assert "status: active" in output and "Verdict: active" in output
    assert version.status == "active"
    assert "version 2: id" in upload_bot(EXAMPLE, "--description", "again")


@needs_bwrap
@pytest.mark.sandbox
@pytest.mark.django_db
def test_a_rejected_bot_shows_its_stderr_and_fails(alice: Any, embedded: None, capsys: Any) -> None:
    out = io.StringIO()
    with pytest.raises(CommandError, match="version 1 of crashy was rejected"):
        call_command("upload_bot", str(FIXTURES / "crash_at_start.py"), "--owner", "alice", "--name", "crashy",
                     "--game", "evolution", stdout=out)
    assert "status: rejected" in out.getvalue()
    assert "RuntimeError: weights.json is missing" in out.getvalue()


@pytest.mark.django_db
def test_a_syntax_error_is_rejected_without_running(alice: Any, embedded: None, tmp_path: Path) -> None:
    bot = tmp_path / "broken.py"
    bot.write_text("import ludus\nludus.run(lambda view, decision: 0\n")
    out = io.StringIO()
    with pytest.raises(CommandError, match="rejected"):
        call_command("upload_bot", str(bot), "--owner", "alice", "--name", "broken", "--game", "evolution",
                     stdout=out)
    assert "SyntaxError" in out.getvalue() and "line 2" in out.getvalue()


@pytest.mark.django_db
@pytest.mark.parametrize(("args", "message"), [
    ({"owner": "nobody"}, "no user 'nobody'"),
    ({"path": "/no/such/bot.py"}, "no such file"),
    ({"path": "bad.zip"}, "not a valid zip file"),
    ({"game": "chess"}, "unknown game 'chess'"),
    ({"name": "Not A Slug!"}, "must be letters, digits"),
    ({"path": "bot.exe"}, "a .py file or a .zip"),
])
def test_bad_input_is_a_command_error_and_stores_nothing(alice: Any, embedded: None, tmp_path: Path,
                                                        args: dict[str, str], message: str) -> None:
    (tmp_path / "bad.zip").write_bytes(b"PK\x03\x04 not really")
    (tmp_path / "bot.exe").write_bytes(b"MZ")
    path = args.get("path", str(EXAMPLE))
    path = path if path.startswith("/") else str(tmp_path / path)
    with pytest.raises(CommandError, match=message):
        upload_bot(path, owner=args.get("owner", "alice"), name=args.get("name", "hungry"),
                   game=args.get("game", "evolution"))
    assert not Bot.objects.exists()


@pytest.mark.django_db
def test_an_oversized_file_is_refused_before_reading(alice: Any, embedded: None, tmp_path: Path,
                                                     settings: Any) -> None:
    settings.LUDUS_UPLOAD_MAX_BYTES = 100
    big = tmp_path / "big.py"
    big.write_bytes(b"#" * 101)
    with pytest.raises(CommandError, match="over the upload limit of 100 bytes"):
        upload_bot(big)


@needs_bwrap
@pytest.mark.integration
@pytest.mark.sandbox
@pytest.mark.django_db(transaction=True)
def test_with_a_broker_it_waits_for_the_worker(celery_worker_process: Any, alice: Any,
                                               wait_until: Callable[..., Any]) -> None:
    output = upload_bot(EXAMPLE, "--wait", "--timeout", "180")
    assert "waiting up to 180 s" in output and "status: active" in output and "Verdict: active" in output

    queued = upload_bot(EXAMPLE, name="later")  # no --wait: it says so and returns at once
    assert "rerun with --wait" in queued or "status: active" in queued
    wait_until(lambda: BotVersion.objects.filter(bot__name="later", status="active").exists(), 180,
               "the worker to validate the version uploaded without --wait")
