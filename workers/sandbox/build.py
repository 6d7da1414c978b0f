"""Building a compiled bot once, at validation, in a sandbox of its own (docs/bots.md, "Languages").

`build_bot(source, filename, manifest, limits)` unpacks the upload read-only at /src, copies it into /build (a
size-limited tmpfs) and runs the manifest's build command there with `/bin/sh -c`, then hands the whole of /build back
as a zip on stdout: the artifact, stored with the version (its sha256 beside the source's) and unpacked into every
match's seat (`unpack_artifact`). Matches never run the compiler.

The build sandbox is a seat's sandbox with other limits (`BuildConfig`): no network (an empty network namespace),
its own uid and control group (memory, processes), RLIMIT_CPU and RLIMIT_FSIZE, a wall-clock timeout, and caps on
its output and artifact. It sees /usr read-only, whole: compilers run drivers, assemblers, linkers and read headers
and libraries all over it (g++ alone reaches /usr/bin, /usr/lib/gcc, /usr/libexec/gcc and /usr/include); and the
/etc dirs the toolchains' links lead to (/etc/alternatives, the JDK's conf). Nothing else of the host: no /home,
no /root, no /var, no /run. A bot that fails to build is a `BuildResult` with `ok` false and the log its author reads
(the compiler's message, the command, the limits); a host that cannot sandbox raises SandboxUnavailable.
"""

from __future__ import annotations

import hashlib
import io
import os
import resource
import select
import tempfile
import time
import zipfile
from dataclasses import dataclass
from pathlib import Path

from tournaments.languages import Manifest
from tournaments.uploads import (
    BadUpload,
    UploadLimits,
    bot_files,
    check_entry,
    manifest_of,
    read_capped,
    safe_parts,
)
from workers.sandbox.bwrap import (
    INNER,
    SHELL,
    SandboxUnavailable,
    UidLease,
    bwrap_path,
    find_interpreter,
    spawn,
)
from workers.sandbox.cgroups import Limits
from workers.sandbox.languages import jvm
from workers.sandbox.leases import default_lock_dir
from workers.sandbox.seat_host import CgroupMode, SeatHost, cgroup_host
from workers.sandbox.seccomp import SeccompUnavailable, bpf_path
from workers.sandbox.unpacking import BadBotSource, unpack_bot

MiB = 1 << 20
BUILD_ENV = {"PATH": "/usr/bin:/bin", "HOME": "/build", "LANG": "C.UTF-8", "TMPDIR": "/tmp"}
# Runs in the build sandbox, by the sandbox's Python (in /usr): copy the source, build, zip /build to stdout.
DRIVER = r"""
import os, shutil, subprocess, sys, zipfile
shutil.copytree("/src", "/build", dirs_exist_ok=True)
for root, dirs, files in os.walk("/build"):
    for name in dirs + files:
        os.chmod(os.path.join(root, name), 0o755 if name in dirs else 0o644)
code = subprocess.run(["/bin/sh", "-c", sys.argv[1]], cwd="/build", stdin=subprocess.DEVNULL, stdout=2).returncode
if code:
    print(f"ludus-build: the build command exited with status {code}", file=sys.stderr)
    sys.exit(3)
with zipfile.ZipFile(sys.stdout.buffer, "w", zipfile.ZIP_DEFLATED) as out:
    for root, dirs, files in os.walk("/build"):
        dirs.sort()
        for name in sorted(files):
            path = os.path.join(root, name)
            if os.path.isfile(path) and not os.path.islink(path):
                info = zipfile.ZipInfo(os.path.relpath(path, "/build"), (1980, 1, 1, 0, 0, 0))
                info.compress_type = zipfile.ZIP_DEFLATED
                with open(path, "rb") as data:
                    out.writestr(info, data.read())
"""


class BuildFault(Exception):
    """What went wrong, in the author's words (a BuildResult's reason)."""


@dataclass(frozen=True)
class BuildConfig:
    """The build sandbox's limits."""

    wall_seconds: int = 120  # the whole build, then it is killed
    cpu_seconds: int = 90  # RLIMIT_CPU per process
    memory_bytes: int = 1536 * MiB  # the build's control group: rustc and javac want more than a seat
    processes: int = 128  # RLIMIT_NPROC and the group's pids.max: compiler drivers, the JVM's threads
    build_bytes: int = 256 * MiB  # the /build tmpfs: the sources, objects and the artifact
    tmp_bytes: int = 256 * MiB  # the /tmp tmpfs: the compilers' temporary files
    artifact_bytes: int = 32 * MiB  # the zip of /build handed back
    log_bytes: int = 64 * 1024  # the build's output kept for the log: its head and tail
    uid_base: int = 20000
    uid_count: int = 1000
    lock_dir: str = ""
    cgroups: CgroupMode = "required"
    seccomp: bool = True

    def describe(self) -> str:
        return (f"limits: {self.wall_seconds} s wall clock, {self.cpu_seconds} s CPU per process, "
                f"{self.memory_bytes >> 20} MiB memory, {self.processes} processes, {self.build_bytes >> 20} MiB "
                f"in /build, {self.tmp_bytes >> 20} MiB in /tmp, {self.artifact_bytes >> 20} MiB artifact, no network")


@dataclass(frozen=True)
class BuildResult:
    ok: bool
    log: str  # what the author reads: the command, the limits, the verdict and the build's output
    artifact: bytes = b""
    seconds: float = 0.0

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.artifact).hexdigest() if self.ok else ""


def manifest_for(source: bytes, filename: str, limits: UploadLimits) -> Manifest:
    """A stored version's manifest, read as its upload was checked. Raises BadBotSource."""
    try:
        return manifest_of(filename, bot_files(filename, source, limits))
    except BadUpload as exc:
        raise BadBotSource(str(exc)) from None


def build_bot(source: bytes, filename: str, manifest: Manifest, limits: UploadLimits,
              config: BuildConfig | None = None) -> BuildResult:
    """Build the bot in the build sandbox (a bot without a build command needs none: ok, no artifact)."""
    config = config or BuildConfig()
    if not manifest.compiled:
        return BuildResult(True, "")
    host = SeatHost(Path(tempfile.mkdtemp(prefix="ludus-")))
    started = time.monotonic()
    try:
        out, log, reason = _run(host, source, filename, manifest.build, limits, config)
    finally:
        host.close()
    seconds = time.monotonic() - started
    head = [f"Build: {manifest.build}", f"Build {config.describe()}."]
    if reason:
        head.append(f"Build failed: {reason}.")
    else:
        head.append(f"Built in {seconds:.1f} s: an artifact of {len(out)} bytes.")
    text = "\n".join([*head, "--- the build's output ---", log.rstrip("\n") or "(empty)"]) + "\n"
    return BuildResult(not reason, text, out if not reason else b"", seconds)


def _run(host: SeatHost, source: bytes, filename: str, command: str, limits: UploadLimits,
         config: BuildConfig) -> tuple[bytes, str, str]:
    """(artifact, output, the fault in words or "")."""
    unpack_bot(source, filename, host.seat_dir / "src", limits)
    groups = cgroup_host(config.cgroups)
    if os.geteuid() == 0 or groups is not None:
        host.lease = UidLease(config.uid_base, config.uid_count, config.lock_dir, groups)
    uid = host.lease.uid if host.lease is not None and os.geteuid() == 0 else None
    if uid is not None:
        os.chown(host.seat_dir, uid, uid)
    os.chmod(host.seat_dir, 0o755 if uid is None else 0o700)
    if groups is not None:
        host.make_group(groups, Limits(config.memory_bytes, config.processes, 1.0))
    try:
        seccomp_file = bpf_path(config.lock_dir or default_lock_dir()) if config.seccomp else "/dev/null"
    except SeccompUnavailable as exc:
        raise SandboxUnavailable(str(exc)) from None
    rlimits = [(resource.RLIMIT_CPU, config.cpu_seconds), (resource.RLIMIT_NPROC, config.processes),
               (resource.RLIMIT_FSIZE, config.build_bytes), (resource.RLIMIT_CORE, 0)]
    group = host.group
    host.proc = proc = spawn(build_command(str(host.seat_dir / "src"), command, config), uid, rlimits, BUILD_ENV, "/",
                             renumbered=True, seccomp_file=seccomp_file, join=group.join if group else None)
    assert proc.stdin is not None
    proc.stdin.close()
    out, err, reason = _collect(proc, config)
    if not reason and group is not None and group.oom_kills():
        reason = f"out of memory: the build went over its {config.memory_bytes >> 20} MiB"
    status = proc.wait() if not reason else proc.poll()
    if not reason and status:
        reason = _exit_reason(err, status)
    log = _clip(err, config.log_bytes)
    return out, log, reason


def build_command(src: str, command: str, config: BuildConfig) -> list[str]:
    """bwrap with /usr and the toolchains' /etc dirs read-only, the source at /src, tmpfs at /build and /tmp."""
    cmd = [bwrap_path(), "--unshare-all", "--unshare-user", "--disable-userns", "--die-with-parent",
           "--new-session", "--as-pid-1", "--hostname", "ludus", "--clearenv"]
    for key, value in BUILD_ENV.items():
        cmd += ["--setenv", key, value]
    cmd += ["--ro-bind", "/usr", "/usr"]
    for top in ("/lib", "/lib64", "/lib32", "/bin", "/sbin"):
        if os.path.islink(top):
            cmd += ["--symlink", os.readlink(top), top]
        elif os.path.isdir(top):
            cmd += ["--ro-bind", top, top]
    for etc in ("/etc/alternatives", *_jdk_etc()):
        cmd += ["--ro-bind", etc, etc]
    cmd += ["--ro-bind", src, "/src", "--size", str(config.build_bytes), "--tmpfs", "/build",
            "--size", str(config.tmp_bytes), "--tmpfs", "/tmp", "--proc", "/proc", "--dev", "/dev",
            "--remount-ro", "/", "--chdir", "/build", *(["--seccomp", "5"] if config.seccomp else []),
            "--", SHELL, "-c", INNER, find_interpreter().executable, "-S", "-I", "-c", DRIVER, command]
    return cmd


def _jdk_etc() -> list[str]:
    try:
        return [p for p in jvm().binds if p.startswith("/etc/")]
    except SandboxUnavailable:
        return []


def _collect(proc: object, config: BuildConfig) -> tuple[bytes, bytes, str]:
    """Read stdout (the artifact) and stderr (the log) until both close, the deadline, or a cap."""
    stdout, stderr = proc.stdout, proc.stderr  # type: ignore[attr-defined]
    fds = {stdout.fileno(): bytearray(), stderr.fileno(): bytearray()}
    caps = {stdout.fileno(): config.artifact_bytes, stderr.fileno(): 1 << 30}
    head, tail = bytearray(), bytearray()  # stderr: its head and tail, within log_bytes
    poller = select.poll()
    for fd in fds:
        poller.register(fd, select.POLLIN)
    deadline = time.monotonic() + config.wall_seconds
    open_fds = set(fds)
    while open_fds:
        left = deadline - time.monotonic()
        if left <= 0:
            return bytes(fds[stdout.fileno()]), bytes(head + tail), (
                f"timed out: the build ran for over {config.wall_seconds} s and was killed")
        for fd, _ in poller.poll(int(left * 1000) + 1):
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                poller.unregister(fd)
                open_fds.discard(fd)
            elif fd == stderr.fileno():
                head, tail = _keep(head, tail, chunk, config.log_bytes)
            else:
                fds[fd] += chunk
                if len(fds[fd]) > caps[fd]:
                    return b"", bytes(head + tail), (
                        f"the built files are over the artifact limit of {config.artifact_bytes >> 20} MiB")
    return bytes(fds[stdout.fileno()]), bytes(head + tail), ""


def _keep(head: bytearray, tail: bytearray, chunk: bytes, limit: int) -> tuple[bytearray, bytearray]:
    half = limit // 2
    if len(head) < half:
        take = chunk[: half - len(head)]
        head += take
        chunk = chunk[len(take):]
    tail += chunk
    if len(tail) > half:
        del tail[: len(tail) - half]
    return head, tail


def _clip(data: bytes, limit: int) -> str:
    text = data.decode(errors="replace")
    return text if len(data) < limit else text + "\n[... the output was cut to its head and tail ...]"


def _exit_reason(err: bytes, status: int) -> str:
    if status == 3 and b"ludus-build: the build command exited" in err:
        return err.decode(errors="replace").rsplit("ludus-build: ", 1)[1].strip()
    if status > 128:
        return f"the build was killed by signal {status - 128} (a limit: CPU time, file size or processes)"
    return f"the build sandbox exited with status {status}"


# --- the artifact in a seat ------------------------------------------------------------------------------------


def unpack_artifact(artifact: bytes, dest: Path, limits: UploadLimits, limit: int = BuildConfig.artifact_bytes) -> None:
    """Write the built files into dest (mode 0555: the binary runs). Every path and size is checked as an upload's
    is, without the upload's file types (a binary has none). Raises BadBotSource."""
    try:
        with zipfile.ZipFile(io.BytesIO(artifact)) as archive:
            files = [e for e in archive.infolist() if not e.is_dir()]
            budget = 8 * limit
            dest.mkdir(mode=0o755, exist_ok=True)
            for entry in files:
                check_entry("the artifact", entry, limits)
                parts = safe_parts("the artifact", entry.filename)
                data = read_capped("the artifact", archive, entry, budget, 8 * limit)
                budget -= len(data)
                target = dest.joinpath(*parts)
                for parent in reversed([target.parent, *target.parent.parents]):
                    if parent.is_relative_to(dest) and not parent.exists():
                        parent.mkdir(mode=0o755)
                target.write_bytes(data)
                target.chmod(0o555)
    except (zipfile.BadZipFile, BadUpload, OSError, ValueError) as exc:
        raise BadBotSource(f"the built artifact cannot be unpacked: {exc}") from None
