"""The local settings file: what lets `manage.py` run in a new shell on a developer's machine without exports.

`make local` (and so `make demo`) writes var/local.env once, with DEBUG=1 and a generated SECRET_KEY. The settings
read it before anything else; a variable set in the environment always wins. Production never reads it: a DEBUG
that the environment turns off skips the file, so a deployment still needs a real SECRET_KEY of its own.
"""

from __future__ import annotations

import os
from pathlib import Path

from dotenv import load_dotenv

from config.env import env_bool

LOCAL_ENV = Path("var") / "local.env"


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
    load_dotenv(path, override=False)  # into os.environ, for the processes this one starts too; the environment wins
