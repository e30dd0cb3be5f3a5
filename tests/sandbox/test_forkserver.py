"""Fork servers, tried for real in bwrap: one submission after another from the same warm
sandbox, and nothing the first does reaches the second or the fork server itself."""

import textwrap
import time
from pathlib import Path

import pytest

from sandbox.backends import BwrapBackend, SandboxLimits
from sandbox.forkserver import ForkServer
from sandbox.pool import SandboxPool
from sandbox.session import SandboxSession, SandboxTimeout
from tests.conftest import call, sandbox_processes


def load(session: SandboxSession, source: str) -> None:
    op, reply = session.request("load", source=textwrap.dedent(source), filename="submission.py")
    assert op == "ok", reply


def probe(session: SandboxSession, source: str):
    load(session, source)
    op, reply = call(session, "probe")
    assert op == "ok", reply
    return reply["value"]


@pytest.fixture
def server():
    with ForkServer(BwrapBackend()) as server:
        server.wait_ready()
        yield server


def forked(server: ForkServer, limits: SandboxLimits | None = None) -> SandboxSession:
    session = SandboxSession(server.backend, limits, fork_server=server)
    assert session.info["fork_server"] is True
    return session


LEAVE_TRACES = """
    import os, subprocess, sys
    import jax.numpy as jnp
    def probe():
        open("/tmp/left-behind", "w").write("secret")
        open("/dev/shm/left-behind", "w").write("secret")
        jnp.sum = lambda x: 42  # a patched module, in this process only
        os.environ["LEFT_BEHIND"] = "1"
        # A process that outlives the submission if anything can: its own session, asleep.
        sleeper = subprocess.Popen([sys.executable, "-c", "import os, time; os.setsid(); time.sleep(600)"])
        return [os.getpid(), sleeper.pid]
    """

LOOK_FOR_TRACES = """
    import os
    import jax.numpy as jnp
    def probe():
        alive = []
        for pid in (int(p) for p in os.listdir("/proc") if p.isdigit()):
            try:
                alive.append(open(f"/proc/{pid}/cmdline").read().replace("\\0", " "))
            except OSError:
                pass
        return {
            "tmp": sorted(os.listdir("/tmp")),
            "shm": sorted(os.listdir("/dev/shm")),
            "sum": float(jnp.sum(jnp.ones(3))),
            "env": "LEFT_BEHIND" in os.environ,
            "processes": [command for command in alive if "sleep" in command],
            "pid": os.getpid(),
        }
    """


def test_nothing_a_submission_leaves_reaches_the_next_one_from_the_same_fork_server(server):
    with forked(server) as first:
        first_pid, sleeper = probe(first, LEAVE_TRACES)
    with forked(server) as second:
        seen = probe(second, LOOK_FOR_TRACES)
    assert seen["tmp"] == [] and seen["shm"] == []
    assert seen["sum"] == 3.0 and not seen["env"]
    assert seen["processes"] == [], "the first submission's process outlived it"
    assert seen["pid"] not in (first_pid, sleeper)


def test_a_child_cannot_read_the_fork_servers_memory_or_environment(server):
    with forked(server) as session:
        refused = probe(
            session,
            """
            import os
            def probe():
                refused = []
                for name in ("mem", "environ", "maps", "fd/0"):
                    try:
                        with open(f"/proc/{os.getppid()}/{name}", "rb") as handle:
                            handle.read(16)
                    except PermissionError:
                        refused.append(name)
                return refused
            """,
        )
    assert refused == ["mem", "environ", "maps", "fd/0"]


def test_a_hanging_child_is_killed_at_its_deadline_and_the_fork_server_serves_on(server):
    started = time.monotonic()
    with forked(server, SandboxLimits(call_seconds=2)) as session:
        load(session, "def probe():\n    while True:\n        pass\n")
        with pytest.raises(SandboxTimeout):
            call(session, "probe")
    assert time.monotonic() - started < 6
    assert server.alive and not server.busy
    with forked(server) as session:
        assert probe(session, "def probe():\n    return 7\n") == 7


@pytest.mark.parametrize("signal_name", ["SIGKILL", "SIGSTOP"])
def test_a_child_that_kills_or_stops_its_fork_server_only_costs_that_fork_server(signal_name):
    with SandboxPool(BwrapBackend()) as pool:
        pool.wait_ready()
        with pool.sandbox() as session:
            server = next(s for s in pool._servers if s.busy)
            load(session, f"import os, signal\nos.kill(os.getppid(), signal.{signal_name})\n")
        assert server.closed, "a fork server that did not clean up must be discarded"
        with pool.sandbox() as session:
            assert probe(session, "def probe():\n    return 'fine'\n") == "fine"
    assert sandbox_processes() == set()


def test_a_notebook_child_gets_its_own_kernel_directory_which_goes_with_it():
    with ForkServer(BwrapBackend(), notebook=True) as server:
        directories = []
        for _ in range(2):
            with SandboxSession(server.backend, notebook=True, fork_server=server) as session:
                session.wait_ready()
                assert session.kernel is not None
                directories.append(session.kernel.directory)
                assert session.kernel.inside == f"/kernel/{session.kernel.name}"
        assert directories[0] != directories[1]
        assert server.kernels is not None
        assert list(Path(server.kernels).iterdir()) == []
