"""Strict readers for settings from environment variables: a bad value stops start-up with its name."""

from __future__ import annotations

import os

from django.core.exceptions import ImproperlyConfigured

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}
_UNSET = object()


def _raw(name: str) -> str | None:
    value = os.environ.get(name)
    return None if value is None or value.strip() == "" else value.strip()


def env_str(name: str, default: str | None | object = _UNSET) -> str:
    """The variable's value; raises ImproperlyConfigured when it is unset and has no default."""
    value = _raw(name)
    if value is not None:
        return value
    if default is _UNSET or default is None:
        raise ImproperlyConfigured(f"environment variable {name} is required")
    assert isinstance(default, str)
    return default


def env_optional(name: str) -> str | None:
    """The variable's value, or None when unset or empty."""
    return _raw(name)


def env_bool(name: str, default: bool) -> bool:
    value = _raw(name)
    if value is None:
        return default
    if value.lower() in _TRUE:
        return True
    if value.lower() in _FALSE:
        return False
    raise ImproperlyConfigured(f"environment variable {name} must be a boolean (1/0, true/false), got {value!r}")


def env_int(name: str, default: int, minimum: int | None = None, maximum: int | None = None) -> int:
    value = _raw(name)
    if value is None:
        return default
    try:
        number = int(value)
    except ValueError:
        raise ImproperlyConfigured(f"environment variable {name} must be an integer, got {value!r}") from None
    if minimum is not None and number < minimum:
        raise ImproperlyConfigured(f"environment variable {name} must be at least {minimum}, got {number}")
    if maximum is not None and number > maximum:
        raise ImproperlyConfigured(f"environment variable {name} must be at most {maximum}, got {number}")
    return number


def env_float(name: str, default: float, minimum: float | None = None) -> float:
    value = _raw(name)
    if value is None:
        return default
    try:
        number = float(value)
    except ValueError:
        raise ImproperlyConfigured(f"environment variable {name} must be a number, got {value!r}") from None
    if number != number or (minimum is not None and number < minimum):  # NaN, or below the minimum
        raise ImproperlyConfigured(f"environment variable {name} must be a number of at least {minimum}, "
                                   f"got {value!r}")
    return number


def env_list(name: str, default: list[str]) -> list[str]:
    """A comma-separated list; empty items are an error, since they are always a typo."""
    value = _raw(name)
    if value is None:
        return list(default)
    items = [item.strip() for item in value.split(",")]
    if any(item == "" for item in items):
        raise ImproperlyConfigured(f"environment variable {name} has an empty item: {value!r}")
    return items


def env_choice(name: str, default: str, choices: tuple[str, ...]) -> str:
    value = env_str(name, default)
    if value not in choices:
        raise ImproperlyConfigured(f"environment variable {name} must be one of {', '.join(choices)}, got {value!r}")
    return value
