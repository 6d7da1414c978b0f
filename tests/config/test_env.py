"""Settings helpers read the environment strictly: a bad value stops start-up with the variable's name."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest
from django.core.exceptions import ImproperlyConfigured
from testkit import ROOT, read_settings

from config.env import env_bool, env_choice, env_float, env_int, env_list, env_str


@pytest.mark.parametrize(("raw", "value"), [("1", True), ("true", True), ("OFF", False), ("no", False)])
def test_env_bool_reads_the_usual_spellings(monkeypatch: pytest.MonkeyPatch, raw: str, value: bool) -> None:
    monkeypatch.setenv("X_FLAG", raw)
    assert env_bool("X_FLAG", not value) is value


@pytest.mark.parametrize(
    ("reader", "raw", "message"),
    [
        (lambda: env_bool("X_VAR", False), "maybe", "X_VAR must be a boolean"),
        (lambda: env_bool("X_VAR", False), " yes", r"X_VAR must be a boolean \(1/0, true/false\), got ' yes'"),
        (lambda: env_int("X_VAR", 1), "ten", "X_VAR must be an integer, got 'ten'"),
        (lambda: env_int("X_VAR", 1), "1.5", "X_VAR must be an integer, got '1.5'"),
        (lambda: env_int("X_VAR", 1, minimum=1), "0", "X_VAR must be at least 1, got 0"),
        (lambda: env_int("X_VAR", 1, maximum=9), "10", "X_VAR must be at most 9, got 10"),
        (lambda: env_float("X_VAR", 1.0, minimum=0.1), "soon", "X_VAR must be a number, got 'soon'"),
        (lambda: env_float("X_VAR", 1.0, minimum=0.1), "nan", "X_VAR must be a number, got 'nan'"),
        (lambda: env_float("X_VAR", 1.0, minimum=0.1), "inf", "X_VAR must be a number, got 'inf'"),
        (lambda: env_float("X_VAR", 1.0, minimum=0.1), "0.05", "X_VAR must be a number of at least 0.1, got '0.05'"),
        (lambda: env_list("X_VAR", []), "a,,b", "X_VAR has an empty item"),
        (lambda: env_list("X_VAR", []), "a,", "X_VAR has an empty item"),
        (lambda: env_choice("X_VAR", "bwrap", ("bwrap", "none")), "docker", "X_VAR must be one of bwrap, none"),
    ],
)
def test_bad_values_fail_loudly(monkeypatch: pytest.MonkeyPatch, reader, raw: str, message: str) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("X_VAR", raw)
    with pytest.raises(ImproperlyConfigured, match=message):
        reader()


@pytest.mark.parametrize("unset", [None, "", "  "])
def test_unset_or_empty_values_take_their_defaults(monkeypatch: pytest.MonkeyPatch, unset: str | None) -> None:
    if unset is None:
        monkeypatch.delenv("X_VAR", raising=False)
    else:
        monkeypatch.setenv("X_VAR", unset)
    assert (env_int("X_VAR", 5), env_float("X_VAR", 0.5, minimum=0), env_bool("X_VAR", True),
            env_list("X_VAR", ["a"]), env_str("X_VAR", "d")) == (5, 0.5, True, ["a"], "d")
    with pytest.raises(ImproperlyConfigured, match="X_VAR is required"):
        env_str("X_VAR")


def test_set_values_are_read_trimmed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("X_VAR", " 7 ")
    assert (env_int("X_VAR", 1), env_float("X_VAR", 1.0, minimum=0), env_str("X_VAR")) == (7, 7.0, "7")
    monkeypatch.setenv("X_VAR", " a , b ")
    assert env_list("X_VAR", []) == ["a", "b"]


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"DEBUG": "0"}, "SECRET_KEY is required"),
        ({"DEBUG": "1", "LUDUS_MOVE_MS": "fast"}, "LUDUS_MOVE_MS must be an integer"),
        ({"DEBUG": "0", "SECRET_KEY": "x", "LUDUS_SANDBOX": "none"}, "refused unless DEBUG=1"),
        ({"DEBUG": "1", "CACHE_URL": "memcached://127.0.0.1"}, "CACHE_URL must be a Redis URL"),
        ({"DEBUG": "1", "LUDUS_SANDBOX_WITHOUT_CGROUPS": "maybe"}, "LUDUS_SANDBOX_WITHOUT_CGROUPS must be a boolean"),
        ({"DEBUG": "1", "LUDUS_SANDBOX": "docker"}, "LUDUS_SANDBOX must be one of bwrap, none, got 'docker'"),
        ({"DEBUG": "1", "LUDUS_PROVISIONAL_SIGMA": "nan"}, "LUDUS_PROVISIONAL_SIGMA must be a number, got 'nan'"),
        ({"DEBUG": "1", "LUDUS_UPLOAD_MAX_FILES": "1000"}, "LUDUS_UPLOAD_MAX_FILES must be at most 256, got 1000"),
        ({"DEBUG": "1", "ALLOWED_HOSTS": "a.example,"}, "ALLOWED_HOSTS has an empty item"),
        ({"DEBUG": "1", "LUDUS_WARM_SEATS": "two"}, "LUDUS_WARM_SEATS must be an integer, got 'two'"),
        ({"DEBUG": "1", "LUDUS_WARM_SEATS": "1.5"}, "LUDUS_WARM_SEATS must be an integer, got '1.5'"),
        ({"DEBUG": "1", "LUDUS_WARM_SEATS": "-1"}, "LUDUS_WARM_SEATS must be at least 0, got -1"),
        ({"DEBUG": "1", "LUDUS_WARM_SEATS_IDLE_SECONDS": "soon"},
         "LUDUS_WARM_SEATS_IDLE_SECONDS must be a number, got 'soon'"),
        ({"DEBUG": "1", "LUDUS_WARM_SEATS_IDLE_SECONDS": "-1"},
         "LUDUS_WARM_SEATS_IDLE_SECONDS must be a number of at least 0.0, got '-1'"),
        ({"DEBUG": "1", "LUDUS_WARM_SEATS_IDLE_SECONDS": " 0 "},
         "LUDUS_WARM_SEATS_IDLE_SECONDS must be a number of seconds above 0, got '0'"),
    ],
)
def test_settings_refuse_to_start_with_bad_environment(env: dict[str, str], message: str) -> None:
    with pytest.raises(ImproperlyConfigured, match=re.escape(message)):
        read_settings({"PATH": "/usr/bin:/bin", **env})


def test_a_process_with_a_bad_environment_stops_at_start_up_naming_the_variable() -> None:
    """The same refusal in a new process, as a deployment meets it: a non-zero exit and the message on stderr."""
    clean = {"PATH": "/usr/bin:/bin", "DJANGO_SETTINGS_MODULE": "config.settings", "DEBUG": "1",
             "LUDUS_MOVE_MS": "fast"}
    done = subprocess.run([sys.executable, "-c", "import django; django.setup()"], cwd=ROOT, env=clean,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode != 0 and "LUDUS_MOVE_MS must be an integer" in done.stderr
