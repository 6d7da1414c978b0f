"""The client's HTTP layer: one httpx client with the token, JSON in and out, and every failure as a ClientError
whose message is one line."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx

USER_AGENT = "ludus-cli/0.1"
TIMEOUT_S = 30.0


class ClientError(Exception):
    """A failure the user can act on; its message is one line."""


def one_line(text: str) -> str:
    return " ".join(text.split())


def error_text(body: Any) -> str:
    """The API's error body ({"detail": ...} or field → messages) as one sentence."""
    if isinstance(body, dict):
        if set(body) == {"detail"}:
            return str(body["detail"])
        return "; ".join(f"{key}: {' '.join(map(str, value)) if isinstance(value, list) else value}"
                         for key, value in body.items())
    if isinstance(body, list):
        return " ".join(map(str, body))
    return str(body)


class Api:
    """The server at `url`, as the user with `token` (None: anonymous)."""

    def __init__(self, url: str, token: str | None, transport: httpx.BaseTransport | None = None) -> None:
        self.url = url.rstrip("/")
        headers = {"User-Agent": USER_AGENT, "Accept": "application/json"}
        if token:
            headers["Authorization"] = f"Token {token}"
        self.http = httpx.Client(base_url=self.url, headers=headers, timeout=TIMEOUT_S, transport=transport)

    def get(self, path: str, **params: Any) -> Any:
        return self.call("GET", path, params={k: v for k, v in params.items() if v is not None})

    def post(self, path: str, **kwargs: Any) -> Any:
        return self.call("POST", path, **kwargs)

    def call(self, method: str, path: str, **kwargs: Any) -> Any:
        response = self._send(method, path, **kwargs)
        return self._json(response)

    def pages(self, path: str, **params: Any) -> Iterator[dict[str, Any]]:
        """Every row of a paginated list, following `next`."""
        page = self.get(path, page_size=100, **params)
        while True:
            yield from page["results"]
            if not page.get("next"):
                return
            page = self._json(self._send("GET", page["next"]))

    def lines(self, path: str, timeout_s: float) -> Iterator[dict[str, Any]]:
        """The objects of an NDJSON feed, as they come."""
        try:
            with self.http.stream("GET", path, timeout=httpx.Timeout(TIMEOUT_S, read=timeout_s)) as response:
                if response.is_error:
                    response.read()
                    raise ClientError(self._refusal("GET", path, response))
                for text in response.iter_lines():
                    if text.strip():
                        yield json.loads(text)
        except httpx.HTTPError as exc:
            raise ClientError(self._unreachable(exc)) from None
        except ValueError:
            raise ClientError(f"{path} sent a line that is not JSON: is {self.url} a Ludus server?") from None

    def _send(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        try:
            response = self.http.request(method, path, **kwargs)
        except httpx.HTTPError as exc:
            raise ClientError(self._unreachable(exc)) from None
        if response.is_error:
            raise ClientError(self._refusal(method, path, response))
        return response

    def _json(self, response: httpx.Response) -> Any:
        try:
            return response.json()
        except ValueError:
            raise ClientError(f"{response.request.url} answered {response.status_code} with no JSON: is "
                              f"{self.url} a Ludus server?") from None

    def _unreachable(self, exc: httpx.HTTPError) -> str:
        return one_line(f"cannot reach {self.url} ({type(exc).__name__}: {exc or 'no answer'}); check LUDUS_URL "
                        f"or `ludus login --url`")

    def _refusal(self, method: str, path: str, response: httpx.Response) -> str:
        try:
            text = error_text(response.json())
        except ValueError:
            text = response.reason_phrase or "no reason given"
        hint = ""
        if response.status_code == 401:
            hint = " (run `ludus login`, or set LUDUS_TOKEN)"
        shown = httpx.URL(path).path if path.startswith("http") else path.split("?")[0]
        return one_line(f"{method} {shown} answered {response.status_code}: {text}{hint}")
