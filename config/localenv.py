"""The local settings file: what lets `manage.py` run in a new shell on a developer's machine without exports.

`make local` (and so `make demo`) writes var/local.env once, with DEBUG=1 and a generated SECRET_KEY. The settings
read it before anything else; a variable set in the environment always wins. Production never reads it: a DEBUG
that the environment turns off skips the file, so a deployment still needs a real SECRET_KEY of its own.
"""

from __future__ import annotations

import os
from pathlib import Path

from dotenv import dotenv_values

from config.env import env_bool

LOCAL_ENV = Path("var") / "local.env"
FROM_FILE: set[str] = set()  # the variables load_local_env took from the file (the environment left them unset)


def local_env_path(base_dir: Path) -> Path | None:
    """LUDUS_ENV_FILE, else var/local.env under base_dir; None when LUDUS_ENV_FILE is set empty (tests do)."""
    named = os.environ.get("LUDUS_ENV_FILE")  # read raw: empty means "no file", which the env helpers cannot say
    if named is None:
        return base_dir / LOCAL_ENV
    return Path(named) if named.strip() else None


def load_local_env(base_dir: Path) -> None:
    """Fill the variables the environment leaves unset from the local settings file, when there is one."""
    path = local_env_path(base_dir)
    if path is None or not path.is_file() or not env_bool("DEBUG", True):
        return
    for name, value in dotenv_values(path).items():
        if value is not None and name not in os.environ:
            os.environ[name] = value
            FROM_FILE.add(name)


def is_from_environment(name: str) -> bool:
    """Whether the environment itself sets the variable (not the local settings file)."""
    return name in os.environ and name not in FROM_FILE

