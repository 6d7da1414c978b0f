"""One web server everywhere: the Dockerfile, compose and Kubernetes run the same ASGI command (gunicorn with uvicorn
workers, as the README says), from the directory that holds gunicorn.conf.py (the proxies it trusts)."""

from __future__ import annotations

import json
import re

import yaml
from testkit import ROOT

ASGI = ["gunicorn", "config.asgi:application", "--worker-class", "uvicorn_worker.UvicornWorker"]


def dockerfile_cmd() -> list[str]:
    text = (ROOT / "Dockerfile").read_text().replace("\\\n", " ")
    found = re.search(r"^CMD (\[.*\])$", text, re.MULTILINE)
    assert found, "the Dockerfile has no CMD in exec form"
    return list(json.loads(found.group(1)))


def compose_web() -> list[str]:
    return list(yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"]["web"]["command"])


def k8s_web() -> list[str]:
    deployment = next(doc for doc in yaml.safe_load_all((ROOT / "deploy" / "k8s" / "web.yaml").read_text())
                      if doc and doc["kind"] == "Deployment")
    return list(deployment["spec"]["template"]["spec"]["containers"][0]["command"])


def test_the_image_compose_and_kubernetes_run_the_asgi_server() -> None:
    commands = {"Dockerfile": dockerfile_cmd(), "compose": compose_web(), "k8s": k8s_web()}
    for where, command in commands.items():
        assert command[:len(ASGI)] == ASGI, f"{where} runs {command}"
    assert "config.asgi:application" in (ROOT / "README.md").read_text()


def test_the_image_holds_gunicorn_conf_in_its_working_directory() -> None:
    text = (ROOT / "Dockerfile").read_text()
    workdir = re.findall(r"^WORKDIR (\S+)$", text, re.MULTILINE)[-1]
    copied = [line.split()[1:-1] for line in text.splitlines() if line.startswith("COPY ")]
    assert workdir == "/app" and any("gunicorn.conf.py" in sources for sources in copied), copied
    assert (ROOT / "gunicorn.conf.py").is_file()
