"""Control groups for one sandbox: a memory limit and a process limit the kernel enforces.

bubblewrap sets no resource limits of its own. Where this process may create cgroups (root,
or a delegated subtree), each sandbox gets its own memory and pids group; the kernel then
kills the sandbox when it outgrows its memory (the OOM kill is counted, which is how the
verdict ``memory_limit_exceeded`` is told apart from a crash) and refuses forks beyond the
process limit. The CPU time the sandbox used is read from the group too (cpuacct in v1,
cpu.stat in v2): bwrap's processes are not all reaped by their parents, so the rusage of the
outer process misses most of it. Both cgroup v1 (separate hierarchies) and v2 are handled.
Where neither is writable, ``SandboxCgroup.create`` returns None and the backend falls back
to rlimits.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

CGROUP_ROOT = Path(os.environ.get("JAXJUDGE_CGROUP_ROOT", "/sys/fs/cgroup"))
PARENT_NAME = "jaxjudge"

# A shell prelude that moves itself into each cgroup.procs file given before "--", then
# execs the rest: every process of the sandbox is born inside the groups, with no race.
ENTER_CGROUPS = (
    'for procs in "$@"; do [ "$procs" = -- ] && break; echo $$ > "$procs" || exit 125; shift; done; shift; exec "$@"'
)


@dataclass
class SandboxCgroup:
    """The cgroup directories of one sandbox (one per hierarchy in v1, one in v2)."""

    memory_dir: Path
    pids_dir: Path
    version: int
    cpu_dir: Path | None = None

    @classmethod
    def create(cls, *, memory_bytes: int, max_pids: int) -> SandboxCgroup | None:
        """Make the groups and set their limits; None where cgroups cannot be used here."""
        # The owner's process id is in the name, so that groups left by dead owners can be told.
        name = f"sandbox-{os.getpid()}-{uuid.uuid4().hex[:12]}"
        try:
            if (CGROUP_ROOT / "memory" / "memory.limit_in_bytes").exists() and (CGROUP_ROOT / "pids").is_dir():
                group = cls(CGROUP_ROOT / "memory" / PARENT_NAME / name, CGROUP_ROOT / "pids" / PARENT_NAME / name, 1)
                group.memory_dir.mkdir(parents=True)
                group.pids_dir.mkdir(parents=True)
                if (CGROUP_ROOT / "cpuacct" / "cpuacct.usage").exists():
                    group.cpu_dir = CGROUP_ROOT / "cpuacct" / PARENT_NAME / name
                    group.cpu_dir.mkdir(parents=True)
                (group.memory_dir / "memory.limit_in_bytes").write_text(str(memory_bytes))
                swap_limit = group.memory_dir / "memory.memsw.limit_in_bytes"
                if swap_limit.exists():
                    swap_limit.write_text(str(memory_bytes))  # memory + swap: no swapping around the limit
                (group.pids_dir / "pids.max").write_text(str(max_pids))
                return group
            if "memory" in _read(CGROUP_ROOT / "cgroup.controllers") and "pids" in _read(
                CGROUP_ROOT / "cgroup.controllers"
            ):
                parent = CGROUP_ROOT / PARENT_NAME
                parent.mkdir(exist_ok=True)
                (parent / "cgroup.subtree_control").write_text("+memory +pids")
                directory = parent / name
                directory.mkdir()
                group = cls(directory, directory, 2, directory)
                (directory / "memory.max").write_text(str(memory_bytes))
                (directory / "memory.swap.max").write_text("0")
                (directory / "pids.max").write_text(str(max_pids))
                return group
        except OSError:
            return None
        return None

    def set_memory_limit(self, memory_bytes: int) -> None:
        """Change the memory limit of a running sandbox (raising it in v1 needs memsw first)."""
        if self.version == 2:
            (self.memory_dir / "memory.max").write_text(str(memory_bytes))
            return
        limit, swap = self.memory_dir / "memory.limit_in_bytes", self.memory_dir / "memory.memsw.limit_in_bytes"
        order = [swap, limit] if swap.exists() and memory_bytes > int(_read(limit) or 0) else [limit, swap]
        for path in order:
            if path.exists():
                path.write_text(str(memory_bytes))

    @property
    def directories(self) -> set[Path]:
        """Every directory of the sandbox's groups (one in v2)."""
        return {self.memory_dir, self.pids_dir} | ({self.cpu_dir} if self.cpu_dir else set())

    def enter_prefix(self) -> list[str]:
        """A command prefix that runs the rest of the command inside this cgroup."""
        procs = {str(directory / "cgroup.procs") for directory in self.directories}
        return ["/bin/sh", "-c", ENTER_CGROUPS, "enter-cgroups", *sorted(procs), "--"]

    def add(self, pid: int) -> None:
        """Move a running process (all its threads) into the groups."""
        for directory in self.directories:
            (directory / "cgroup.procs").write_text(str(pid))

    def oom_killed(self) -> bool:
        """Whether the kernel killed a process of this sandbox for running out of memory."""
        events = self.memory_dir / ("memory.oom_control" if self.version == 1 else "memory.events")
        return _counter(_read(events), "oom_kill") > 0

    def peak_memory_bytes(self) -> int:
        return group_peak_memory_bytes(self.memory_dir, self.version)

    def cpu_seconds(self) -> float | None:
        """CPU time used by every process that ran in the sandbox; None where it is not counted."""
        return None if self.cpu_dir is None else group_cpu_seconds(self.cpu_dir, self.version)

    def remove(self) -> None:
        """Kill whatever is left in the groups and delete them."""
        for directory in self.directories:
            for _ in range(50):
                pids = [int(p) for p in _read(directory / "cgroup.procs").split()]
                for pid in pids:
                    with contextlib.suppress(ProcessLookupError):
                        os.kill(pid, signal.SIGKILL)
                with contextlib.suppress(OSError):
                    directory.rmdir()
                    break
                time.sleep(0.01)


# A group stands empty only for a moment: between the death of its sandbox and its owner
# reading what happened (an OOM kill, the CPU used) and removing it.
ABANDONED_AFTER_S = 60.0


def remove_abandoned(older_than_s: float = ABANDONED_AFTER_S) -> int:
    """Delete the sandbox groups that dead owners left behind; return how many.

    A worker killed by SIGKILL (or by SIGTERM mid-grade) takes its sandboxes with it
    (``--die-with-parent``) but not their groups, which would pile up on the host. A group is
    deleted only when empty, older than ``older_than_s`` and of an owner no longer running (or
    of unknown owner): a live owner may be about to read why its sandbox died.
    """
    parents = [CGROUP_ROOT / PARENT_NAME] + [CGROUP_ROOT / h / PARENT_NAME for h in ("memory", "pids", "cpuacct")]
    now, removed = time.time(), 0
    for parent in parents:
        if not parent.is_dir():
            continue
        for directory in parent.glob("sandbox-*"):
            try:
                if _owner_running(directory.name) or now - directory.stat().st_mtime < older_than_s:
                    continue
                directory.rmdir()  # the kernel refuses a group that still holds a process
                removed += 1
            except OSError:
                continue  # removed meanwhile by its owner, or not ours to remove
    return removed


def _owner_running(name: str) -> bool:
    _, _, rest = name.partition("-")
    owner, _, _ = rest.partition("-")
    if not owner.isdigit():
        return False  # named before owners were: its owner cannot be told
    try:
        os.kill(int(owner), 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # running, as another user
    return True


def group_cpu_seconds(cpu_dir: Path, version: int) -> float | None:
    """The CPU time of every process that ran in a cgroup (and its children), as the kernel
    counts it; None where it cannot be read."""
    if version == 1:
        usage = _read(cpu_dir / "cpuacct.usage").strip()
        return int(usage) / 1e9 if usage.isdigit() else None
    return _counter(_read(cpu_dir / "cpu.stat"), "usage_usec") / 1e6


def group_peak_memory_bytes(memory_dir: Path, version: int) -> int:
    """The most memory a cgroup's processes held at once (0 where it cannot be read)."""
    name = "memory.max_usage_in_bytes" if version == 1 else "memory.peak"
    with contextlib.suppress(ValueError):
        return int(_read(memory_dir / name) or 0)
    return 0


def _read(path: Path) -> str:
    try:
        return path.read_text()
    except OSError:
        return ""


def _counter(text: str, key: str) -> int:
    for line in text.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0] == key and parts[1].isdigit():
            return int(parts[1])
    return 0


def cgroups_usable() -> bool:
    """Whether this process can give a sandbox cgroups of its own (memory and process limits).

    Tried for real: a small group is made, limited and removed again.
    """
    probe = SandboxCgroup.create(memory_bytes=64 * 2**20, max_pids=8)
    if probe is None:
        return False
    probe.remove()
    return True
