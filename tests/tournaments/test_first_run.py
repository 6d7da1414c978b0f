"""The README's first run, as written, from a fresh clone in a new shell with nothing exported.

Every command line of the ```sh blocks of its sections "Quick start", "Running the service" and "Uploading a bot"
runs in order, each in a shell of its own, on the embedded default (SQLite under var/, no broker): `make demo`
until its web server answers, then each `.venv/bin/python manage.py ...` line, which must exit 0. Not run here:
`make test` and the like (this suite itself), and `curl` (it needs a token from the admin).

The clone is the tree a commit of this checkout would hold (tracked files plus new ones, not ignored ones). Its venv
reuses this one's packages rather than downloading them again, so the Makefile's pip step is the one part not
exercised; `make demo` serves on a free port (PORT, the README's `make demo PORT=...`).
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import sysconfig
import urllib.request
from pathlib import Path

import pytest
from testkit import ROOT, free_port, listening, wait_until

pytestmark = [pytest.mark.slow, pytest.mark.integration, pytest.mark.sandbox]
SECTIONS = ("## Quick start", "## Running the service", "## Uploading a bot")
NOT_RUN = ("make test", "make check", "curl ")
SHELL_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"


def readme_commands() -> list[str]:
    """Every command line of the ```sh blocks of SECTIONS, in order."""
    text = (ROOT / "README.md").read_text()
    lines = []
    for heading in SECTIONS:
        start = text.index(f"\n{heading}\n")
        section = text[start:text.find("\n## ", start + 1)]
        for block in re.findall(r"```sh\n(.*?)```", section, re.DOTALL):
            joined = re.sub(r"\\\n", " ", block)  # a line ending in a backslash goes on on the next
            lines += [line for line in joined.splitlines() if line.strip() and not line.startswith("#")]
    return [line for line in lines if not line.startswith(NOT_RUN)]


def fresh_clone(where: Path) -> Path:
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                            capture_output=True, check=True).stdout.decode().split("\0")
    for name in filter(None, listed):
        if (ROOT / name).is_file():
            (where / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(ROOT / name, where / name)
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", where / ".venv"], check=True)
    site = next((where / ".venv" / "lib").glob("python3*/site-packages"))
    (site / "ludus-test-packages.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    (where / ".venv" / ".installed").touch()  # newer than pyproject.toml: make's pip step has nothing to do
    return where


def new_shell(home: Path, **extra: str) -> dict[str, str]:
    return {"PATH": SHELL_PATH, "HOME": str(home), "LANG": "C.UTF-8", "TERM": "dumb", **extra}


def serve_demo(clone: Path, line: str, env: dict[str, str], log: Path) -> str:
    """Run `make demo` until its server answers; stop it; return what it printed."""
    port = int(env["PORT"])
    with open(log, "wb") as out:
        demo = subprocess.Popen(["bash", "-c", line], cwd=clone, env=env, stdout=out, stderr=subprocess.STDOUT,
                                start_new_session=True)
    try:
        wait_until(lambda: listening(port) or demo.poll() is not None, 900, "make demo to serve")
        assert demo.poll() is None, f"make demo exited {demo.returncode}:\n{log.read_text()[-3000:]}"
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=30) as page:
            assert page.status == 200 and b"demo evolution round robin" in page.read()
    finally:
        os.killpg(demo.pid, signal.SIGTERM)
        demo.wait(timeout=60)
    return log.read_text()


@pytest.mark.timeout(1800)  # every command of the README in turn, analysis and branches included, beside the demo
def test_the_readme_commands_work_as_written_after_make_demo(tmp_path: Path) -> None:
    commands = readme_commands()
    assert commands[0].startswith("make demo ") and len(commands) >= 15, commands
    clone = fresh_clone(tmp_path / "clone")
    (tmp_path / "home").mkdir()
    env = new_shell(tmp_path / "home", PORT=str(free_port()))
    out = serve_demo(clone, commands[0], env, tmp_path / "demo.log")
    assert "wrote var/local.env" in out and "a round robin of 6 bots" in out and "60 matches" in out, out[-3000:]
    env.pop("PORT")
    for line in commands[1:]:
        done = subprocess.run(["bash", "-c", line], cwd=clone, env=env, capture_output=True, text=True, timeout=900)
        assert done.returncode == 0, f"{line}\nexit {done.returncode}\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}"
        assert done.stdout.strip() or line.startswith("cp "), f"{line} printed nothing"
        if "replay verify" in line:
            assert re.search(r"[1-9]\d* verified, 0 mismatched", done.stdout), done.stdout
