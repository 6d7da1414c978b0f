"""Strict readers for settings from environment variables: a bad value stops start-up with its name.

environs parses the values (docs/architecture.md#configuration); these readers add Ludus' rules around it: an empty
value counts as unset, a bad one raises ImproperlyConfigured naming the variable and the value, numbers have their
ranges, and a list has no empty item. environs rather than django-environ, which reads an unknown boolean as false;
its marshmallow costs a new process about 60 ms of CPU (`python -m benchmarks.startup`, docs/scaling.md).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TypeVar

from django.core.exceptions import ImproperlyConfigured
from environs import Env, EnvError

T = TypeVar("T")
_ENV = Env()


def _raw(name: str) -> str | None:
    value = os.environ.get(name)
    return None if value is None or value.strip() == "" else value.strip()


def _parsed(parse: Callable[[str], T | None], name: str, default: T, kind: str) -> T:
    """environs' reading of the variable, or the default when it is unset or empty."""
    raw = _raw(name)
    if raw is None:
        return default
    try:
        value = parse(name)
    except EnvError:
        raise ImproperlyConfigured(f"environment variable {name} must be {kind}, got {os.environ[name]!r}") from None
    assert value is not None  # set and parsed
    return value


def env_str(name: str, default: str | None = None) -> str:
    """The variable's value; raises ImproperlyConfigured when it is unset and has no default."""
    value = _raw(name) or default
    if value is None:
        raise ImproperlyConfigured(f"environment variable {name} is required")
    return value


def env_optional(name: str) -> str | None:
    """The variable's value, or None when unset or empty."""
    return _raw(name)


def env_bool(name: str, default: bool) -> bool:
    return _parsed(_ENV.bool, name, default, "a boolean (1/0, true/false)")


def env_int(name: str, default: int, minimum: int | None = None, maximum: int | None = None) -> int:
    number = _parsed(_ENV.int, name, default, "an integer")
    if minimum is not None and number < minimum:
        raise ImproperlyConfigured(f"environment variable {name} must be at least {minimum}, got {number}")
    if maximum is not None and number > maximum:
        raise ImproperlyConfigured(f"environment variable {name} must be at most {maximum}, got {number}")
    return number


def env_float(name: str, default: float, minimum: float) -> float:
    """A finite number of at least minimum (environs refuses NaN and infinity)."""
    number = _parsed(_ENV.float, name, default, "a number")
    if number < minimum:
        raise ImproperlyConfigured(f"environment variable {name} must be a number of at least {minimum}, "
                                   f"got {_raw(name)!r}")
    return number


def env_list(name: str, default: list[str]) -> list[str]:
    """A comma-separated list; empty items are an error, since they are always a typo."""
    items = [item.strip() for item in _parsed(_ENV.list, name, default, "a comma-separated list")]
    if "" in items:
        raise ImproperlyConfigured(f"environment variable {name} has an empty item: {_raw(name)!r}")
    return items


def env_choice(name: str, default: str, choices: tuple[str, ...]) -> str:
    value = env_str(name, default)
    if value not in choices:
        raise ImproperlyConfigured(f"environment variable {name} must be one of {', '.join(choices)}, got {value!r}")
    return value
