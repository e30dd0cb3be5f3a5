"""This process's warm sandboxes: the one registry of them.

The site's grading worker, a batch's workers (``grader autograde``) and validation each take
their sandboxes here, keyed alike: the backend (by name, None for this host's default), the
device, and whether the sandboxes run notebooks (each prepares a kernel as it starts). A pool
lives as long as its process; its sandboxes, fork servers and cgroups go when it closes.
"""

from __future__ import annotations

import atexit
import os
import threading
from dataclasses import dataclass

from sandbox.host import cgroups
from sandbox.host.backends import get_backend
from sandbox.host.prestarted import SandboxPool


@dataclass(frozen=True)
class PoolKind:
    """What a pool's sandboxes are: the backend's name (None: the default), device, notebooks."""

    backend: str | None = None
    device: str = "cpu"
    notebook: bool = False


_pools: dict[PoolKind, SandboxPool] = {}
_lock = threading.Lock()


def sandbox_pool(kind: PoolKind = PoolKind(), *, replace_early: bool = False) -> SandboxPool:
    """This process's pool of ``kind``, started on first use.

    ``replace_early``: start a taken sandbox's replacement at once (a batch, which grades one
    file after another), rather than once the grading is done (the site, where a Submit must
    not share the CPU with a sandbox warming up). The first caller of a kind decides.
    """
    with _lock:
        if kind not in _pools:
            backend = get_backend(kind.backend, device=kind.device)
            _pools[kind] = SandboxPool(backend, notebook=kind.notebook, replace_early=replace_early)
        return _pools[kind]


def close_pools() -> None:
    """Close every pool of this process (their sandboxes, fork servers and cgroups go too)."""
    with _lock:
        for pool in _pools.values():
            pool.close()
        _pools.clear()


atexit.register(close_pools)


def default_jobs(items: int, *, notebooks: bool = False) -> int:
    """How many files a batch grades at once, never more than there are files.

    One more than the cores for problems (a job waits on its sandbox part of the time: all 27
    problems validated on 2 cores took 246 s with 2 jobs, 214 s with 3); as many as the cores
    for notebooks, whose sandboxes each prepare a kernel and whose gradings are short (40
    notebooks of one problem, on 2 cores: 12.15 s with 2 jobs, 12.75 s with 3, medians of 3).
    """
    cores = len(os.sched_getaffinity(0))
    return max(1, min(items, cores if notebooks else cores + 1))


def unenforced_limits(device: str = "cpu") -> str | None:
    """What the sandboxes of a process here would lack (they cannot get cgroups), or None."""
    if not get_backend(device=device).uses_host_cgroups or cgroups.cgroups_usable():
        return None
    return (
        f"sandboxes cannot get cgroups here ({cgroups.CGROUP_ROOT} is not writable for this user): they would "
        "run without a process cap, their memory capped only by an address-space limit"
    )
