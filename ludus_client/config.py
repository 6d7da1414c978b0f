"""Where the client keeps its server and token: a JSON file readable by its owner only (mode 0600). LUDUS_URL and
LUDUS_TOKEN override it, so a CI job needs no file at all."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

from ludus_client.http import ClientError

DEFAULT_URL = "http://127.0.0.1:8000"


def config_path() -> Path:
    """$LUDUS_CONFIG, else $XDG_CONFIG_HOME/ludus/config.json, else ~/.config/ludus/config.json."""
    if explicit := os.environ.get("LUDUS_CONFIG"):
        return Path(explicit)
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "ludus" / "config.json"


@dataclass(frozen=True)
class Settings:
    url: str
    token: str | None
    username: str | None = None


def load() -> Settings:
    """The saved settings, with LUDUS_URL and LUDUS_TOKEN winning."""
    saved: dict[str, str] = {}
    path = config_path()
    if path.exists():
        try:
            saved = json.loads(path.read_text())
        except (OSError, ValueError) as exc:
            raise ClientError(f"cannot read {path} ({exc}); delete it and run `ludus login` again") from None
    return Settings(url=os.environ.get("LUDUS_URL") or saved.get("url") or DEFAULT_URL,
                    token=os.environ.get("LUDUS_TOKEN") or saved.get("token"), username=saved.get("username"))


def save(settings: Settings) -> Path:
    """Write the settings, readable by this user only; returns the file."""
    path = config_path()
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    body = json.dumps({"url": settings.url, "token": settings.token, "username": settings.username}, indent=2)
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w") as file:
        file.write(body + "\n")
    path.chmod(0o600)  # a file that existed before keeps its mode through os.open
    return path
