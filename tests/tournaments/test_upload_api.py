"""POST /api/bots/upload/ and GET /api/versions/{id}/ (tournaments/api/uploads.py), as a permission matrix.

alice uploads; bob is another author; charlie is an outsider; root is staff; anonymous has no credentials.
"""

from __future__ import annotations

import base64
import io
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.core.cache import cache
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient
from rest_framework.throttling import ScopedRateThrottle

from tournaments.models import Bot, BotVersion

pytestmark = pytest.mark.django_db

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "bots" / "evolution_bot.py"
UPLOAD_URL = "/api/bots/upload/"


@pytest.fixture(autouse=True)
def fresh_throttle() -> Iterator[None]:
    cache.clear()  # throttle history lives in the cache
    yield
    cache.clear()


def client_for(user: Any | None) -> APIClient:
    client = APIClient()
    if user is not None:
        token, _ = Token.objects.get_or_create(user=user)
        client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    return client


def form(data: bytes | None = None, filename: str = "hungry.py", **fields: str) -> dict[str, Any]:
    body: dict[str, Any] = {"name": "hungry", "game": "evolution",
                            "file": SimpleUploadedFile(filename, EXAMPLE.read_bytes() if data is None else data)}
    body.update(fields)
    return body


def post(user: Any | None, body: dict[str, Any]) -> Any:
    return client_for(user).post(UPLOAD_URL, body, format="multipart")


# --- upload -------------------------------------------------------------------------------------------------------


def test_it_creates_a_pending_version_for_an_author_with_a_token(alice: Any) -> None:
    response = post(alice, form(description="feeds first"))
    assert response.status_code == 201, response.content
    body = response.json()
    version = BotVersion.objects.get(pk=body["id"])
    assert body["number"] == 1 and body["status"] == "pending" and body["bot"] == "hungry"
    assert body["sha256"] == version.sha256 and body["owner"] == "alice"
    assert response["Location"].endswith(f"/api/versions/{version.pk}/")
    assert version.bot.owner == alice and version.bot.description == "feeds first"


def test_a_second_upload_is_version_two(alice: Any) -> None:
    assert post(alice, form()).json()["number"] == 1
    assert post(alice, form(EXAMPLE.read_bytes() + b"\n# v2\n")).json()["number"] == 2


def test_a_session_login_may_upload_too(alice: Any) -> None:
    client = APIClient()
    client.force_login(alice)
    assert client.post(UPLOAD_URL, form(), format="multipart").status_code == 201


def test_it_answers_401_to_anonymous_uploads() -> None:
    response = post(None, form())
    assert response.status_code == 401
    assert response["WWW-Authenticate"] == "Token"
    assert not BotVersion.objects.exists()


def test_it_answers_401_to_a_bad_token() -> None:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION="Token not-a-token")
    assert client.post(UPLOAD_URL, form(), format="multipart").status_code == 401


def test_a_bad_zip_is_400_with_the_reason(alice: Any) -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("main.py", b"x = 1\n")
        archive.writestr("../../etc/cron.d/evil", b"* * * * * root rm -rf /\n")
    response = post(alice, form(buffer.getvalue(), "bot.zip"))
    assert response.status_code == 400
    assert "climbs out of the archive" in response.json()["detail"]
    assert not Bot.objects.exists()


def test_a_syntax_error_is_201_rejected_with_the_log(alice: Any) -> None:
    response = post(alice, form(b"def act(view, decision):\n    return (0\n"))
    assert response.status_code == 201
    body = response.json()
    assert body["status"] == "rejected" and "SyntaxError" in body["validation_log"]
    assert "line 2" in body["validation_log"]


@pytest.mark.parametrize(("fields", "message"), [
    ({"game": "chess"}, "unknown game 'chess'"),
    ({"name": "no spaces"}, "must be letters, digits"),
])
def test_bad_fields_are_400_with_the_reason(alice: Any, fields: dict[str, str], message: str) -> None:
    response = post(alice, form(**fields))
    assert response.status_code == 400 and message in response.json()[next(iter(fields))][0]


def test_missing_fields_are_400_naming_them(alice: Any) -> None:
    response = client_for(alice).post(UPLOAD_URL, {"name": "hungry"}, format="multipart")
    assert response.status_code == 400
    assert set(response.json()) == {"game", "file"}


def test_an_oversized_file_is_400(alice: Any, settings: Any) -> None:
    settings.LUDUS_UPLOAD_MAX_BYTES = 2000
    response = post(alice, form(b"#" * 2001))
    assert response.status_code == 400
    assert "over the upload limit of 2000 bytes" in str(response.json())


def test_an_oversized_request_is_413_before_it_is_read(alice: Any, settings: Any) -> None:
    settings.LUDUS_UPLOAD_MAX_BYTES = 2000
    response = post(alice, form(b"#" * 200_000))
    assert response.status_code == 413 and "limited to 2000 bytes" in response.json()["detail"]


def test_uploads_are_throttled(alice: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ScopedRateThrottle, "THROTTLE_RATES", {"uploads": "2/hour"})
    assert [post(alice, form()).status_code for _ in range(3)] == [201, 201, 429]
    assert BotVersion.objects.count() == 2


# --- reading a version: metadata for all, the log and the source for the owner and staff ---------------------------


@pytest.fixture
def version(alice: Any) -> BotVersion:
    return BotVersion.objects.get(pk=post(alice, form()).json()["id"])


def get_version(user: Any | None, version: BotVersion) -> Any:
    return client_for(user).get(f"/api/versions/{version.pk}/")


@pytest.mark.parametrize("who", ["alice", "root"])
def test_the_owner_and_staff_see_the_log_and_the_source(who: str, version: BotVersion, request: Any,
                                                        admin_user: Any) -> None:
    user = admin_user if who == "root" else request.getfixturevalue(who)
    BotVersion.objects.filter(pk=version.pk).update(validation_log="Verdict: active")
    body = get_version(user, version).json()
    assert body["validation_log"] == "Verdict: active"
    assert base64.b64decode(body["source_base64"]) == EXAMPLE.read_bytes()


@pytest.mark.parametrize("who", ["bob", "charlie", None])
def test_others_see_metadata_but_never_the_source_or_the_log(who: str | None, version: BotVersion,
                                                             request: Any) -> None:
    user = request.getfixturevalue(who) if who else None
    response = get_version(user, version)
    assert response.status_code == 200
    body = response.json()
    assert body["sha256"] == version.sha256 and body["number"] == 1 and body["owner"] == "alice"
    assert "source_base64" not in body and "validation_log" not in body
    assert "ludus.run" not in response.content.decode()


@pytest.mark.parametrize("who", ["bob", None])
def test_a_private_bot_is_not_found_for_others(who: str | None, version: BotVersion, request: Any,
                                               alice: Any) -> None:
    Bot.objects.filter(pk=version.bot_id).update(visibility="private")
    assert get_version(request.getfixturevalue(who) if who else None, version).status_code == 404
    assert get_version(alice, version).status_code == 200


def test_the_schema_describes_both_endpoints(alice: Any) -> None:
    response = client_for(alice).get("/api/schema/", HTTP_ACCEPT="application/json")
    paths = response.json()["paths"]
    assert "multipart/form-data" in paths[UPLOAD_URL]["post"]["requestBody"]["content"]
    assert "/api/versions/{id}/" in paths
