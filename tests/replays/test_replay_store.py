"""The replay store (docs/operations.md#the-replay-store): action logs in a Django storage (an S3 server over real
HTTP, or a directory), found by their key and checked against their digest on every read; move_replays moves the
ones still in the database, re-simulating each."""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.core.management import call_command
from django.core.management.base import CommandError
from s3server import S3Server, s3_replay_store

from config.settings import replay_storage
from replays import storage
from replays.models import Replay
from replays.moves import move_pending
from replays.storage import ReplayDigestMismatch, ReplayUnavailable, digest_of, key_for
from replays.verify import verify_document
from tournaments.models import Match
from tournaments.scheduling import start_tournament
from workers.runner import run_match

pytestmark = [pytest.mark.django_db, pytest.mark.integration]


@pytest.fixture
def s3(settings: Any, monkeypatch: pytest.MonkeyPatch) -> Iterator[S3Server]:
    with s3_replay_store(settings, monkeypatch) as server:
        yield server


@pytest.fixture
def matches(tournament: Any) -> list[Match]:
    return start_tournament(tournament, enqueue=False)[:3]


def finished(match: Match) -> Replay:
    assert run_match(match.pk) == "finished"
    return Replay.objects.get(match=match)


def in_database(match: Match) -> Replay:
    """The match played, its replay then put back in the database as a replay from before the store was."""
    replay = finished(match)
    data = replay.raw_bytes()
    Replay.objects.filter(pk=replay.pk).update(location="", actions=data, digest="")
    return Replay.objects.get(pk=replay.pk)


def move_replays(*args: str) -> str:
    out = io.StringIO()
    call_command("move_replays", *args, stdout=out)
    return out.getvalue()


def test_it_writes_a_finished_match_replay_to_the_s3_store_under_its_digest(s3: S3Server, matches: list[Match]) -> None:
    replay = finished(matches[0])
    assert replay.actions is None and not replay.pending
    stored = s3.objects()
    assert list(stored) == [replay.location] == [key_for(replay.digest)]
    assert digest_of(stored[replay.location]) == replay.digest and len(stored[replay.location]) == replay.size
    assert verify_document(replay.document())["digest"] == replay.footer["digest"]


def test_it_writes_the_same_action_log_once(s3: S3Server) -> None:
    data = b"\x1f\x8b same bytes"
    keys = {storage.write_file(data, digest_of(data)) for _ in range(3)}
    assert keys == {key_for(digest_of(data))} and list(s3.objects()) == list(keys)


def test_it_says_which_file_is_corrupt_when_its_bytes_are_not_the_recorded_ones(s3: S3Server,
                                                                               matches: list[Match]) -> None:
    replay = finished(matches[0])
    s3.client().put_object(Bucket="ludus-replays", Key=replay.location, Body=b"not the replay")
    with pytest.raises(ReplayDigestMismatch, match=f"replay file {replay.location}: .* but the database records "
                                                   f"{replay.digest}"):
        replay.action_log()
    with pytest.raises(CommandError, match="1 replay"):
        call_command("replay", "verify", "--all", stdout=io.StringIO())


def test_it_says_the_store_is_unavailable_when_it_does_not_answer(s3: S3Server, matches: list[Match]) -> None:
    replay = finished(matches[0])
    s3.stop()
    with pytest.raises(ReplayUnavailable, match=f"reading {replay.location} from the replay store failed"):
        replay.action_log()


def test_a_request_that_needs_the_stopped_store_gets_a_503_that_says_to_retry(s3: S3Server, matches: list[Match],
                                                                             admin_user: Any, client: Any) -> None:
    replay = finished(matches[0])
    s3.stop()
    client.force_login(admin_user)  # sees every match, so no visibility rule stands before the store
    for url in (f"/api/matches/{replay.match_id}/replay/actions/", f"/api/matches/{replay.match_id}/frames/",
                f"/replays/{replay.match_id}/export/", f"/replays/{replay.match_id}/log.json"):
        answer = client.get(url)
        assert answer.status_code == 503, (url, answer.status_code, answer.content[:300])
        assert answer["Retry-After"] == "30"
        text = answer.json()["detail"] if url.startswith("/api/") else answer.content.decode()
        assert "the replay store is not answering; try again in 30 seconds" in text, (url, text)
        assert replay.location not in text  # where the bytes live is for the log, not the client
    s3.start()
    assert client.get(f"/api/matches/{replay.match_id}/replay/actions/").status_code == 200


def test_a_result_the_store_did_not_take_keeps_its_replay_in_the_database_pending(s3: S3Server,
                                                                                  matches: list[Match]) -> None:
    s3.stop()
    replay = finished(matches[0])
    assert replay.pending and replay.location == "" and digest_of(bytes(replay.actions)) == replay.digest
    assert verify_document(replay.document())["digest"] == replay.footer["digest"]
    s3.start()
    # the results that follow an outage skip the store for a while: they do not each wait out its timeouts
    assert finished(matches[1]).pending and not s3.objects()
    assert move_pending().moved == 2 and not Replay.objects.filter(pending=True).exists()
    assert {Replay.objects.get(pk=replay.pk).location} <= set(s3.objects())


def test_it_checks_the_digest_of_a_replay_in_the_database_too(matches: list[Match]) -> None:
    replay = finished(matches[0])
    data = replay.raw_bytes()
    Replay.objects.filter(pk=replay.pk).update(location="", actions=data[:-1] + bytes([data[-1] ^ 1]))
    with pytest.raises(ReplayDigestMismatch, match=f"replay of match {matches[0].pk}, in the database"):
        Replay.objects.get(pk=replay.pk).action_log()


def test_the_filesystem_store_keeps_the_file_under_its_key(settings: Any, tmp_path: Path,
                                                           matches: list[Match]) -> None:
    settings.STORAGES = {**settings.STORAGES, "replays": replay_storage(None, tmp_path)}
    replay = finished(matches[0])
    assert digest_of((tmp_path / replay.location).read_bytes()) == replay.digest
    assert replay.location == f"replays/{replay.digest[:2]}/{replay.digest}.json.gz"


def test_a_corrupt_file_under_the_key_is_written_again_not_trusted(settings: Any, tmp_path: Path) -> None:
    """A directory store is asked before it is written (it refuses to overwrite): a file under the key whose bytes are
    not the key's (corrupted on disk) must not stand for the new replay, or it fails verification with them."""
    settings.STORAGES = {**settings.STORAGES, "replays": replay_storage(None, tmp_path)}
    data = b"an action log"
    key = key_for(digest_of(data))
    (tmp_path / key).parent.mkdir(parents=True)
    (tmp_path / key).write_bytes(b"an action lo\x00")
    assert storage.write_file(data, digest_of(data)) == key
    assert storage.read_file(key, digest_of(data)) == data
    assert sorted(p.name for p in (tmp_path / key).parent.iterdir()) == [Path(key).name]  # no second name left
    (tmp_path / key).write_bytes(data)
    before = (tmp_path / key).stat().st_mtime_ns
    assert storage.write_file(data, digest_of(data)) == key  # the right bytes already there: not written again
    assert (tmp_path / key).stat().st_mtime_ns == before


def test_move_replays_moves_each_verified_and_leaves_a_replay_that_does_not_verify(s3: S3Server,
                                                                                  matches: list[Match]) -> None:
    old = [in_database(match) for match in matches]
    broken = old[2]
    broken.footer["outcome"]["scores"] = [99, 99]
    broken.save()
    with pytest.raises(CommandError, match="1 replay.s. do not verify") as raised:
        move_replays("--to", "store")
    assert raised.value.returncode == 1
    moved = [Replay.objects.get(pk=replay.pk) for replay in old[:2]]
    assert all(r.location and r.actions is None and r.digest == digest_of(old[i].raw_bytes())
               for i, r in enumerate(moved))
    assert {s3.objects()[r.location] for r in moved} == {r.raw_bytes() for r in old[:2]}
    assert Replay.objects.get(pk=broken.pk).location == ""  # left in the database, readable as it was
    assert Replay.objects.get(pk=broken.pk).action_log() == broken.action_log()

    Replay.objects.filter(pk=broken.pk).delete()
    assert "0 moved, 0 mismatched (left in the database), 0 in the database, 2 in the store" in move_replays()
    assert "2 in the store and sound, 0 bad, 0 in the database" in move_replays("--check")


def test_move_replays_check_finds_a_missing_file_and_a_replay_left_in_the_database(s3: S3Server,
                                                                                  matches: list[Match]) -> None:
    gone, left = finished(matches[0]), in_database(matches[1])
    s3.client().delete_object(Bucket="ludus-replays", Key=gone.location)
    with pytest.raises(CommandError, match="1 stored replay.s. are missing or corrupt, 1 are still in the database"):
        move_replays("--check")
    assert Replay.objects.get(pk=left.pk).location == ""  # --check moves nothing


def test_move_replays_stops_when_the_store_is_down_and_changes_nothing(s3: S3Server, matches: list[Match]) -> None:
    old = in_database(matches[0])
    s3.stop()
    with pytest.raises(CommandError, match="the replay store failed; run again when it answers"):
        move_replays()
    assert Replay.objects.get(pk=old.pk).raw_bytes() == old.raw_bytes()
    assert Replay.objects.get(pk=old.pk).location == ""


@pytest.mark.parametrize(("store", "bucket", "prefix"), [
    ("s3://ludus-replays", "ludus-replays", ""),
    ("s3://ludus.replays/site/a/", "ludus.replays", "site/a"),
])
def test_the_setting_names_a_bucket_and_a_prefix(store: str, bucket: str, prefix: str) -> None:
    options = replay_storage(store, Path(), "http://minio:9000")["OPTIONS"]
    assert isinstance(options, dict)
    assert (options["bucket_name"], options["location"], options["endpoint_url"]) == (bucket, prefix,
                                                                                      "http://minio:9000")


@pytest.mark.parametrize("store", ["minio:9000", "s3://", "s3://Ludus_Replays", "https://bucket.example.org"])
def test_the_setting_refuses_what_is_not_an_s3_bucket(store: str) -> None:
    with pytest.raises(ImproperlyConfigured, match=f"LUDUS_REPLAY_STORE must look like s3://bucket.*{store}"):
        replay_storage(store, Path())
