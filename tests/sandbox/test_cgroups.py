"""The host's cgroups (real ones, where this process may make them): groups that dead owners
left behind are removed; those of live sandboxes or live owners, and new ones, are kept."""

import os
import subprocess
import time

import pytest

from sandbox.host.cgroups import ABANDONED_AFTER_S, SandboxCgroup, cgroups_usable, remove_abandoned

pytestmark = pytest.mark.skipif(not cgroups_usable(), reason="this process cannot make cgroups here")


def make_group() -> SandboxCgroup:
    group = SandboxCgroup.create(memory_bytes=256 * 2**20, max_pids=16)
    assert group is not None
    return group


def backdate(group: SandboxCgroup) -> None:
    long_ago = time.time() - 2 * ABANDONED_AFTER_S
    for directory in group.directories:
        os.utime(directory, (long_ago, long_ago))


def test_only_empty_old_groups_of_dead_owners_are_removed(monkeypatch):
    mine = make_group()  # this process owns it: it may be about to read why its sandbox died
    dead_owner = subprocess.Popen(["true"])
    dead_owner.wait()
    monkeypatch.setattr("sandbox.host.cgroups.os.getpid", lambda: dead_owner.pid)
    abandoned, busy, new = make_group(), make_group(), make_group()
    monkeypatch.undo()
    assert f"sandbox-{dead_owner.pid}-" in abandoned.memory_dir.name
    sleeper = subprocess.Popen(["sleep", "60"])
    try:
        busy.add(sleeper.pid)
        for group in (mine, abandoned, busy):
            backdate(group)

        assert remove_abandoned() >= len(abandoned.directories)

        assert not any(directory.exists() for directory in abandoned.directories)
        assert all(directory.exists() for directory in mine.directories | busy.directories | new.directories)
        assert str(sleeper.pid) in (busy.pids_dir / "cgroup.procs").read_text().split()
    finally:
        sleeper.kill()
        sleeper.wait()
        for group in (mine, busy, new):
            group.remove()
    assert not any(directory.exists() for directory in mine.directories | busy.directories | new.directories)
