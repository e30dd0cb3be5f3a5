"""Fork servers, tried for real in bwrap: one submission after another from the same warm
sandbox, and nothing the first does reaches the second or the fork server itself."""

import contextlib
import os
import signal
import socket
import subprocess
import sys
import textwrap
import time
import uuid
from pathlib import Path

import pytest

from sandbox import protocol
from sandbox.host.backends import BwrapBackend, ProcessBackend, SandboxLimits
from sandbox.host.forkserver import ForkServer, ForkServerUnsupported
from sandbox.host.prestarted import SandboxPool
from sandbox.host.session import SandboxSession, SandboxTimeout
from tests.conftest import call, sandbox_processes


def load(session: SandboxSession, source: str) -> None:
    op, reply = session.request(protocol.LOAD, source=textwrap.dedent(source), filename="submission.py")
    assert op == protocol.OK, reply


def probe(session: SandboxSession, source: str):
    load(session, source)
    op, reply = call(session, "probe")
    assert op == protocol.OK, reply
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
        command = "import os, time; os.setsid(); print('asleep', flush=True); time.sleep(600)  # MARKER"
        sleeper = subprocess.Popen([sys.executable, "-c", command], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        said = sleeper.stdout.readline()  # once it is in a session of its own
        last_words = sleeper.stdout.read().decode()[-2000:] if said.strip() != b"asleep" else ""
        return [said.decode(), sleeper.poll(), last_words]
    """

LOOK_FOR_TRACES = """
    import os
    import jax.numpy as jnp
    def probe():
        return {
            "tmp": sorted(os.listdir("/tmp")),
            "shm": sorted(os.listdir("/dev/shm")),
            "sum": float(jnp.sum(jnp.ones(3))),
            "env": "LEFT_BEHIND" in os.environ,
        }
    """


def host_processes_naming(marker: str) -> list[int]:
    """Every process of the host whose command line holds ``marker``.

    The whole of /proc, not the fork server's tree: a process that escaped the tree is found
    too, and no reading of the kernel's ``children`` lists (which can miss a child while its
    siblings come and go) decides the answer.
    """
    found = []
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                if marker.encode() in Path(entry.path, "cmdline").read_bytes():
                    found.append(int(entry.name))
    return found


def ancestors(pid: int) -> list[int]:
    """A process's parent, its parent's parent, and so on up to the host's init."""
    found = []
    while pid > 1:
        stat = Path(f"/proc/{pid}/stat").read_text()
        pid = int(stat.rsplit(")", 1)[1].split()[1])  # the field after the (command name)
        found.append(pid)
    return found


def test_nothing_a_submission_leaves_reaches_the_next_one_from_the_same_fork_server(server):
    marker = f"left-by-{uuid.uuid4().hex}"
    with forked(server) as first:
        said, exited, words = probe(first, LEAVE_TRACES.replace("MARKER", marker))
        assert (said, exited) == ("asleep\n", None), words
        sleepers = host_processes_naming(marker)
        assert len(sleepers) == 1 and server.process.pid in ancestors(sleepers[0])
    # Every process of the first submission is gone, its setsid sleeper included.
    assert host_processes_naming(marker) == []
    with forked(server) as second:
        seen = probe(second, LOOK_FOR_TRACES)
    assert seen == {"tmp": [], "shm": [], "sum": 3.0, "env": False}


def test_a_child_sees_no_process_not_even_its_fork_server(server):
    with forked(server) as session:
        seen = probe(
            session,
            """
            import os
            def probe():
                return [os.getpid(), os.getppid(), sorted(os.listdir("/proc"))]
            """,
        )
    # pid 2 under its namespace's init, as in a sandbox started for it; /proc names no process.
    assert seen == [2, 1, ["cpuinfo", "meminfo"]]


@pytest.mark.slow
def test_a_hanging_child_is_killed_at_its_deadline_and_the_fork_server_serves_on(server):
    with forked(server, SandboxLimits(call_seconds=2)) as session:
        load(session, "def probe():\n    while True:\n        pass\n")
        started = time.monotonic()
        with pytest.raises(SandboxTimeout):
            call(session, "probe")
    assert time.monotonic() - started < 6  # the call's 2 s and the kill, however busy the machine
    assert server.alive and not server.busy
    with forked(server) as session:
        assert probe(session, "def probe():\n    return 7\n") == 7


def test_a_child_cannot_signal_its_fork_server(server):
    with forked(server) as session:
        load(
            session,
            """
            import os, signal
            for pid, number in ((-1, signal.SIGKILL), (1, signal.SIGKILL), (os.getppid(), signal.SIGSTOP)):
                try:  # -1: every process it may signal, which are those of its own namespace only
                    os.kill(pid, number)
                except ProcessLookupError:
                    pass
            """,
        )
    assert server.alive and not server.closed
    with forked(server) as session:
        assert probe(session, "def probe():\n    return 'served by the same fork server'\n")


@pytest.mark.slow
def test_a_fork_server_that_stops_answering_is_discarded_and_replaced(monkeypatch):
    monkeypatch.setattr("sandbox.host.forkserver.CONTROL_SECONDS", 2.0)
    with SandboxPool(BwrapBackend()) as pool:
        pool.wait_ready()
        with pool.sandbox() as session:
            server = next(s for s in pool._servers if s.busy)
            # As if it hung: stopped from outside (a submission cannot reach it).
            assert server.ready is not None
            os.kill(server._host_pid(server.ready["pid"]), signal.SIGSTOP)
            load(session, "x = 1\n")
        assert server.closed, "a fork server that did not clean up must be discarded"
        with pool.sandbox() as session:
            assert probe(session, "def probe():\n    return 'fine'\n") == "fine"
    assert sandbox_processes() == set()


@pytest.mark.slow
def test_a_notebook_childs_kernel_lives_in_its_own_tmp_which_goes_with_it():
    listing = "import glob\nprint(sorted(glob.glob('/tmp/kernel-*/connection.json')))"
    with ForkServer(BwrapBackend(), notebook=True) as server:
        seen = []
        for _ in range(2):
            with SandboxSession(server.backend, notebook=True, fork_server=server) as session:
                op, reply = session.request(protocol.NOTEBOOK, cells=[listing], output_limit=2**20, cpu_devices=1)
                assert op == protocol.OK, reply
                (output,) = reply["cells"][0]["outputs"]
                seen.append(eval(output["text"]))
        # One kernel a child, inside the sandbox; the first child's is gone when the second runs.
        assert [len(files) for files in seen] == [1, 1]
        assert seen[0] != seen[1]
        assert all(files[0].startswith("/tmp/kernel-") for files in seen)


class NoNestedNamespaces(BwrapBackend):
    """bwrap on a host where a sandbox may not make user namespaces of its own."""

    def command(self, limits, **options):
        command = super().command(limits, **options)
        at = command.index(self.executable) + 1
        return [*command[:at], "--disable-userns", *command[at:]]


@pytest.mark.slow
def test_without_nested_namespaces_the_pool_starts_a_sandbox_per_submission():
    backend = NoNestedNamespaces()
    with ForkServer(backend) as server, pytest.raises(ForkServerUnsupported):
        server.wait_ready()
    with SandboxPool(backend) as pool, pool.sandbox() as session:
        assert "fork_server" not in session.info
        assert probe(session, "def probe():\n    return 'isolated all the same'\n")
    assert not pool.fork_servers


def test_the_unisolated_process_backend_never_runs_a_fork_server():
    # Its clean-up (kill every process it may signal, empty /tmp) would reach the host itself.
    with pytest.warns(RuntimeWarning, match="does NOT isolate"):
        backend = ProcessBackend()
    with pytest.raises(ValueError, match="cannot run a fork server"):
        ForkServer(backend)
    with SandboxPool(backend) as pool, pool.sandbox() as session:
        assert "fork_server" not in session.info
        assert probe(session, "def probe():\n    return 'started afresh'\n") == "started afresh"
    assert not pool.fork_servers


def test_a_fork_server_started_outside_a_pid_namespace_of_its_own_refuses_to_serve():
    # Started straight on the host, as a misconfigured backend would: it must stop before it
    # reads a request, so that no clean-up of its can ever run here.
    parent, child = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    runtime = subprocess.run(
        [sys.executable, "-c", "from sandbox.inside.runtime import main; main()"],
        env={**os.environ, protocol.FORK_SERVER_VARIABLE: str(child.fileno())},
        pass_fds=[child.fileno()],
        cwd=Path(__file__).resolve().parents[2],
        capture_output=True,
        text=True,
        timeout=60,
    )
    child.close()
    assert runtime.returncode != 0
    assert "not in a sandbox's own PID namespace" in runtime.stderr
    assert parent.recv(100) == b"", "it must not have said READY"  # b"": closed, nothing sent
