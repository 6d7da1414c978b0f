"""One control group per sandboxed seat: memory, processes and CPU bounded, frozen off its turn, killed as a whole.

Two layouts, found once per worker process by `find_host()`:
- cgroup v2, where delegated: the worker runs in a leaf group whose parent P has the memory, pids and cpu
  controllers enabled in `P/cgroup.subtree_control` and is writable by the worker (systemd's `Delegate=yes`, or a
  container started as docs/bots.md shows). Seats go in `P/ludus/seat-N`.
- cgroup v1, one hierarchy per controller (memory, pids, cpu, cpuacct, freezer), writable by the worker (root).
  Seats go in `<mount>/ludus/seat-N` of each: the mount's root is what this worker was handed (a container with a
  private cgroup namespace sees its own group there).

Memory counts everything the seat's processes pin: anonymous memory, shared memory (System V, POSIX, memfd), tmpfs
pages and the page cache it dirties, and kernel memory (both versions charge it to the group on this kernel
generation). Going over kills the seat: v2 with `memory.oom.group`, v1 by the kernel's OOM killer in the group,
after which the seat kills the rest of its group (see SandboxedSeat). `seat-N` takes N from the seat's uid lease
(workers/sandbox/bwrap.py), an flock, so the sweep at worker start removes exactly the groups that no live seat holds.
"""

from __future__ import annotations

import errno
import os
import signal
import time
from dataclasses import dataclass, field
from pathlib import Path

V1_CONTROLLERS = ("memory", "pids", "cpu", "cpuacct", "freezer")
V2_CONTROLLERS = ("memory", "pids", "cpu")
PARENT = "ludus"
# v1: an empty group under the freezer's `ludus`, frozen for good (_keep_freezer_on). Not `seat-N`: no sweep removes it.
KEEP_FROZEN = "kept-frozen"
CPU_PERIOD_US = 100_000
HOW_TO_DELEGATE = (
    "Delegate control groups to the worker: with cgroup v2, start it in a leaf group whose parent has the memory, "
    "pids and cpu controllers enabled in cgroup.subtree_control and is writable by the worker (systemd: "
    "Delegate=yes; Docker: the worker service of docker-compose.yml, see docs/bots.md 'Control groups'); with "
    "cgroup v1, mount the memory, pids, cpu, cpuacct and freezer hierarchies writable and run the worker as root. "
    "To run uploaded bots without them anyway (no memory, process or CPU bound per seat, no freezing of the seats "
    "that wait), set LUDUS_SANDBOX_WITHOUT_CGROUPS=1."
)


class CgroupsUnavailable(RuntimeError):
    """No control group can be made for a seat here; the message says why and how to delegate."""


@dataclass(frozen=True)
class Limits:
    """What one seat's group may use, all its processes together."""

    memory_bytes: int
    max_processes: int
    cpu_cores: float


@dataclass(frozen=True)
class Host:
    """Where seat groups go: v2, one parent dir; v1, one parent dir per controller (co-mounted ones share it)."""

    version: int
    parents: dict[str, Path]  # controller name -> the `ludus` dir holding the seats ("" for v2's single tree)
    controllers: tuple[str, ...] = V2_CONTROLLERS

    def dirs(self, name: str) -> dict[str, Path]:
        return {ctl: parent / name for ctl, parent in self.parents.items()}


# --- finding the hierarchy ------------------------------------------------------------------------------------------


def _mounts() -> list[tuple[str, str, set[str]]]:
    """(fstype, mount point, super options) of every cgroup mount of this process."""
    found = []
    for line in Path("/proc/self/mountinfo").read_text().splitlines():
        fields, _, tail = line.partition(" - ")
        fstype, _, options = (tail.split(" ") + ["", "", ""])[:3]
        if fstype in ("cgroup", "cgroup2"):
            found.append((fstype, fields.split(" ")[4], set(options.split(","))))
    return found


def _own_v2_path() -> str:
    for line in Path("/proc/self/cgroup").read_text().splitlines():
        if line.startswith("0::"):
            return line[3:]
    return "/"


def find_v2(mounts: list[tuple[str, str, set[str]]]) -> Host:
    """The delegated v2 parent of this worker's own group. Raises CgroupsUnavailable naming what is missing."""
    points = [point for fstype, point, _ in mounts if fstype == "cgroup2"]
    if not points:
        raise CgroupsUnavailable("no cgroup2 hierarchy is mounted")
    delegated = Path(points[0] + os.path.dirname(_own_v2_path()))
    enabled = set((delegated / "cgroup.subtree_control").read_text().split())
    missing = [c for c in V2_CONTROLLERS if c not in enabled]
    if missing:
        raise CgroupsUnavailable(f"cgroup v2 at {delegated} does not delegate {', '.join(missing)} "
                                 f"(its cgroup.subtree_control holds {' '.join(sorted(enabled)) or 'nothing'})")
    if not os.access(delegated, os.W_OK):
        raise CgroupsUnavailable(f"cgroup v2 at {delegated} is not writable by uid {os.geteuid()}")
    return Host(2, {"": delegated / PARENT})


def find_v1(mounts: list[tuple[str, str, set[str]]]) -> Host:
    """The v1 hierarchies of the five controllers. Raises CgroupsUnavailable naming what is missing."""
    parents: dict[str, Path] = {}
    for controller in V1_CONTROLLERS:
        points = [point for fstype, point, opts in mounts if fstype == "cgroup" and controller in opts]
        if not points:
            raise CgroupsUnavailable(f"no cgroup v1 hierarchy has the {controller} controller")
        if not os.access(points[0], os.W_OK):
            raise CgroupsUnavailable(f"cgroup v1 {controller} at {points[0]} is not writable by uid {os.geteuid()}")
        parents[controller] = Path(points[0]) / PARENT
    return Host(1, parents)


def find_host() -> Host:
    """v2 where delegated, else v1. Raises CgroupsUnavailable with both reasons and how to delegate."""
    mounts = _mounts()
    reasons = []
    for finder in (find_v2, find_v1):
        try:
            return prepared(finder(mounts))
        except (CgroupsUnavailable, OSError) as exc:
            reasons.append(str(exc))
    raise CgroupsUnavailable(f"uploaded bots need a control group per seat, and this worker cannot create one "
                             f"({'; '.join(reasons)}). {HOW_TO_DELEGATE}")


def prepared(host: Host) -> Host:
    """Make the `ludus` parents (v2: with the controllers passed down to the seats), weighted for the CPU."""
    for parent in set(host.parents.values()):
        parent.mkdir(exist_ok=True)
        if host.version == 2:
            enabled = (parent.parent / "cgroup.subtree_control").read_text().split()
            wanted = [c for c in host.controllers if c in enabled]
            if wanted:
                _write(parent / "cgroup.subtree_control", " ".join(f"+{c}" for c in wanted))
    _weigh(host)
    _keep_freezer_on(host)
    return host


def _keep_freezer_on(host: Host) -> None:
    """v1: keep one empty group frozen for good, so that a seat's freeze and thaw stay cheap. The kernel (6.1 on) turns
    its v1 freezer's checks on with the first frozen group on the host and off with the last thawed one, each time by
    patching its own code, which stops every CPU: measured here, a freeze and thaw cost the worker 147 us of CPU when
    no other group was frozen, 3 us when one was. Without the kept group that happened at every hand-off to and from
    a seat frozen whenever it waits (JavaScript, Java, one caught computing off its turn) beside watched ones, and
    several times a match at the freezes of booting and parked seats. What a frozen group does is unchanged; an empty
    one holds nothing. Idempotent (every worker writes it; the kernel counts a group once); on failure, only slower."""
    if host.version != 1 or "freezer" not in host.parents:
        return
    kept = host.parents["freezer"] / KEEP_FROZEN
    try:
        kept.mkdir(exist_ok=True)
        _write(kept / "freezer.state", "FROZEN")
    except OSError:
        pass


def _weigh(host: Host) -> None:
    """The seats of all matches share their parent's CPU weight. At the default (one task's worth) seats booting
    together on a busy host got half the CPU they got outside any group (measured: 4 seats' start, 786 against
    418 ms); weighed as one task per core, they get what they had."""
    cores = os.cpu_count() or 1
    if host.version == 1 and "cpu" in host.parents:
        _write(host.parents["cpu"] / "cpu.shares", str(1024 * cores))
    elif host.version == 2 and "cpu" in host.controllers and (host.parents[""] / "cpu.weight").exists():
        _write(host.parents[""] / "cpu.weight", str(min(10_000, 100 * cores)))


# --- one seat's group -----------------------------------------------------------------------------------------------


@dataclass
class SeatGroup:
    """A seat's group(s): made with its limits, joined by the seat's first process, frozen, measured, emptied."""

    host: Host
    name: str
    limits: Limits
    dirs: dict[str, Path] = field(init=False)
    removed: bool = False
    _fds: dict[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.dirs = self.host.dirs(self.name)
        if any(path.exists() for path in self.dirs.values()):  # left by a worker that died holding this slot
            empty_group(self.dirs, self.host.version)
        for path in set(self.dirs.values()):
            path.mkdir(exist_ok=True)
        self._write_limits()
        self._fds["freeze"] = os.open(self._file("freeze"), os.O_WRONLY | os.O_CLOEXEC)
        self._fds["cpu"] = os.open(self._file("cpu"), os.O_RDONLY | os.O_CLOEXEC)
        for what, _ in FROZEN_CPU[self.host.version]:
            if self.host.version == 1 or _has(self.host, what):
                self._fds[what] = os.open(self._file(what), os.O_WRONLY | os.O_CLOEXEC)
        if self._file("oom").exists():  # not on a v2 tree without the memory controller
            self._fds["oom"] = os.open(self._file("oom"), os.O_RDONLY | os.O_CLOEXEC)

    def _file(self, what: str) -> Path:
        """The file for `what` in this group's hierarchy and version."""
        controller, name = (FILES_V2 if self.host.version == 2 else FILES_V1)[what]
        return self.dirs.get(controller, self.dirs.get("", Path())) / name

    def _write_limits(self) -> None:
        for what, value in limit_values(self.limits, self.host.version):
            path = self._file(what)
            if path.parent.exists() and (self.host.version == 1 or _has(self.host, what)):
                _write_if_supported(path, value)

    def join(self, pid: int) -> None:
        """Move pid into the group in every hierarchy (before it has children: they inherit it)."""
        for path in set(self.dirs.values()):
            _write(path / "cgroup.procs", str(pid))

    def freeze(self) -> None:
        """Stop the group's tasks, and leave it next to no CPU meanwhile: the freezer stops a task only on its way
        back to user mode, and one inside a long kernel call (madvise(MADV_POPULATE_READ) over a large mapping: tens
        of milliseconds) runs on until it returns. Throttled to 1 ms of CPU a second at the least weight, such a call
        takes next to nothing from the seat that decides (docs/bots.md, "The freezer")."""
        self._set_cpu(frozen=True)
        os.pwrite(self._fds["freeze"], b"1" if self.host.version == 2 else b"FROZEN", 0)

    def thaw(self) -> None:
        self._set_cpu(frozen=False)
        os.pwrite(self._fds["freeze"], b"0" if self.host.version == 2 else b"THAWED", 0)

    def _set_cpu(self, frozen: bool) -> None:
        """The frozen group's CPU bound and weight, or the seat's own (its quota of cpu_cores, the default weight)."""
        for what, value in cpu_values(self.limits, self.host.version, frozen):
            if what in self._fds:
                os.pwrite(self._fds[what], value.encode(), 0)

    def is_frozen(self) -> bool:
        """Whether the group was asked to freeze (its tasks stop at their next return to user mode)."""
        asked = self._file("freeze")
        if self.host.version == 1:
            asked = asked.with_name("freezer.self_freezing")
        return asked.read_text().strip() == "1"

    def cpu_ns(self) -> int:
        """CPU time used by all the group's processes so far, in nanoseconds."""
        text = os.pread(self._fds["cpu"], 4096, 0)
        if self.host.version == 1:
            return int(text)
        at = text.find(b"usage_usec ")  # read at every decision: the one line found, not the whole file parsed
        if at < 0:
            return int(_stat(text.decode())["usage_usec"]) * 1000
        return int(text[at + 11:text.index(b"\n", at)]) * 1000

    def oom_kills(self) -> int:
        """How many processes the kernel killed here for going over the memory limit."""
        if "oom" not in self._fds:
            return 0
        text = os.pread(self._fds["oom"], 4096, 0)  # read at every hand-off: found, not parsed (half the time)
        at = text.find(b"\noom_kill ")  # v1 memory.oom_control and v2 memory.events both have the line
        return int(text[at + 10:text.index(b"\n", at + 10)]) if at >= 0 else 0

    def pids(self) -> list[int]:
        return _pids(next(iter(self.dirs.values())))

    def peak_memory(self) -> int | None:
        """The most memory the group held at once (v1 always; v2 where the kernel has memory.peak)."""
        try:
            return int(self._file("peak").read_text())
        except (OSError, ValueError):
            return None

    def kill(self, spare: int | None = None) -> None:
        """SIGKILL every process of the group but spare, frozen so that none forks meanwhile. Without spare, wait
        (briefly) until none is left. The seat spares bwrap's monitor, so that it reaps the bot: a bot killed with
        its parent would be left to the host's init to reap, a zombie for a while."""
        if spare is None:
            empty_group(self.dirs, self.host.version)
            return
        self.freeze()
        for pid in self.pids():
            if pid != spare:
                _sigkill(pid)
        self.thaw()

    def remove(self) -> None:
        """Kill what is left and remove the group's dirs (idempotent)."""
        if self.removed:
            return
        self.removed = True
        for fd in self._fds.values():
            os.close(fd)
        self._fds.clear()
        remove_group(self.dirs, self.host.version)


# Per version: what -> (controller dir key, file name). v2 keeps every file in one dir, keyed "".
FILES_V1 = {
    "freeze": ("freezer", "freezer.state"), "cpu": ("cpuacct", "cpuacct.usage"),
    "oom": ("memory", "memory.oom_control"), "peak": ("memory", "memory.max_usage_in_bytes"),
    "memory": ("memory", "memory.limit_in_bytes"), "memsw": ("memory", "memory.memsw.limit_in_bytes"),
    "kmem": ("memory", "memory.kmem.limit_in_bytes"), "pids": ("pids", "pids.max"),
    "cpu_period": ("cpu", "cpu.cfs_period_us"), "cpu_quota": ("cpu", "cpu.cfs_quota_us"),
    "cpu_shares": ("cpu", "cpu.shares"),
}
FILES_V2 = {
    "freeze": ("", "cgroup.freeze"), "cpu": ("", "cpu.stat"), "oom": ("", "memory.events"),
    "peak": ("", "memory.peak"), "memory": ("", "memory.max"), "swap": ("", "memory.swap.max"),
    "oom_group": ("", "memory.oom.group"), "pids": ("", "pids.max"), "cpu_max": ("", "cpu.max"),
    "cpu_weight": ("", "cpu.weight"),
}
_V2_CONTROLLER_OF = {"memory": "memory", "swap": "memory", "oom_group": "memory", "pids": "pids", "cpu_max": "cpu",
                     "cpu_weight": "cpu"}
# A frozen group's CPU, per version: the least share the kernel accepts, 1 ms of quota in its longest period, 1 s
# (a throttled task may overrun its quota by up to a scheduler tick: some 5 ms a second in all), at the least weight.
FROZEN_PERIOD_US = 1_000_000
FROZEN_CPU = {1: [("cpu_period", str(FROZEN_PERIOD_US)), ("cpu_quota", "1000"), ("cpu_shares", "2")],
              2: [("cpu_max", f"1000 {FROZEN_PERIOD_US}"), ("cpu_weight", "1")]}


def cpu_values(limits: Limits, version: int, frozen: bool) -> list[tuple[str, str]]:
    """The (what, value) writes of a group's CPU bound and weight: frozen, FROZEN_CPU; running, its quota of
    limits.cpu_cores at the default weight."""
    if frozen:
        return FROZEN_CPU[version]
    quota = str(max(1000, int(limits.cpu_cores * CPU_PERIOD_US)))
    if version == 2:
        return [("cpu_max", f"{quota} {CPU_PERIOD_US}"), ("cpu_weight", "100")]
    return [("cpu_period", str(CPU_PERIOD_US)), ("cpu_quota", quota), ("cpu_shares", "1024")]


def limit_values(limits: Limits, version: int) -> list[tuple[str, str]]:
    """The (what, value) writes that set limits, in an order the kernel accepts (v1: memsw after memory)."""
    quota = str(max(1000, int(limits.cpu_cores * CPU_PERIOD_US)))
    if version == 2:
        return [("memory", str(limits.memory_bytes)), ("swap", "0"), ("oom_group", "1"),
                ("pids", str(limits.max_processes)), ("cpu_max", f"{quota} {CPU_PERIOD_US}")]
    return [("memory", str(limits.memory_bytes)), ("memsw", str(limits.memory_bytes)),
            ("kmem", str(limits.memory_bytes)), ("pids", str(limits.max_processes)),
            ("cpu_period", str(CPU_PERIOD_US)), ("cpu_quota", quota)]


def _has(host: Host, what: str) -> bool:
    return _V2_CONTROLLER_OF.get(what) in host.controllers


def _write(path: Path, value: str) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CLOEXEC)
    try:
        os.write(fd, value.encode())
    finally:
        os.close(fd)


def _write_if_supported(path: Path, value: str) -> None:
    """memsw exists only with swap accounting, and kernels since 5.x ignore or refuse a kmem limit (they charge
    kernel memory to the memory limit instead): a missing or refused optional file is not an error."""
    try:
        _write(path, value)
    except OSError as exc:
        if path.name not in ("memory.memsw.limit_in_bytes", "memory.kmem.limit_in_bytes", "memory.swap.max") \
                or exc.errno not in (errno.ENOENT, errno.EINVAL, errno.EOPNOTSUPP, errno.ENOTSUP):
            raise


def _stat(text: str) -> dict[str, str]:
    return dict(line.split(" ", 1) for line in text.splitlines() if " " in line)


def _pids(path: Path) -> list[int]:
    try:
        return [int(p) for p in (path / "cgroup.procs").read_text().split()]
    except OSError:
        return []


def empty_group(dirs: dict[str, Path], version: int, timeout: float = 2.0) -> None:
    """Kill every process in the group until none is left (a fork bomb may fork while we kill)."""
    _unthrottle(dirs, version)  # a throttled task would take seconds to die (freeze(), above)
    path = dirs.get("freezer") or next(iter(dirs.values()))
    if version == 2 and (path / "cgroup.kill").exists():
        _write(path / "cgroup.kill", "1")  # frozen or not, everything dies
    freezer = path / "freezer.state"
    deadline = time.monotonic() + timeout
    while _pids(path) and time.monotonic() < deadline:
        _kill_frozen(path, freezer if freezer.exists() else None)
        time.sleep(0.002)


def _unthrottle(dirs: dict[str, Path], version: int) -> None:
    """Lift a frozen group's CPU bound (a leftover group may still have it), where the group has the file."""
    path = dirs.get("cpu", dirs.get(""))
    name, value = ("cpu.cfs_quota_us", "-1") if version == 1 else ("cpu.max", "max")
    if path is not None and (path / name).exists():
        _write(path / name, value)


def _kill_frozen(path: Path, freezer: Path | None) -> None:
    """v1 has no cgroup.kill: freeze the group so nothing forks, SIGKILL each process, thaw so that they die (a
    frozen v1 task does not act on a SIGKILL until thawed)."""
    if freezer is not None:
        _write(freezer, "FROZEN")
    for pid in _pids(path):
        _sigkill(pid)
    if freezer is not None:
        _write(freezer, "THAWED")


def _sigkill(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def remove_group(dirs: dict[str, Path], version: int) -> None:
    """Empty the group and remove its dirs; a group that will not empty is left for the next sweep."""
    existing = {ctl: path for ctl, path in dirs.items() if path.exists()}
    if not existing:
        return
    empty_group(existing, version)
    for path in set(existing.values()):
        try:
            path.rmdir()
        except FileNotFoundError:
            pass
        except OSError as exc:
            if exc.errno != errno.EBUSY:
                raise


def seat_slots(host: Host) -> set[int]:
    """The N of every `seat-N` group under the host's parents: live seats' and leftovers alike."""
    slots: set[int] = set()
    for parent in set(host.parents.values()):
        if parent.is_dir():
            slots.update(int(p.name[5:]) for p in parent.iterdir() if p.name.startswith("seat-")
                         and p.name[5:].isdigit())
    return slots


def remove_seat(host: Host, slot: int) -> None:
    """Kill and remove the leftover group of a slot that no live seat holds (the caller holds its lock)."""
    remove_group(host.dirs(f"seat-{slot}"), host.version)
