"""The bwrap sandbox, tried for real: what a submission can reach and how it is stopped."""

import os
import signal
import sys
import textwrap
import time

import pytest

from sandbox import grading_xla_flags, protocol
from sandbox.host.backends import (
    BackendUnavailable,
    BwrapBackend,
    ProcessBackend,
    SandboxLimits,
    get_backend,
    interpreter_paths,
)
from sandbox.host.session import SandboxCrashed, SandboxSession, SandboxStartFailed, SandboxTimeout
from tests.conftest import call, sandbox_processes

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def run_in_sandbox(source: str, *calls: str, limits: SandboxLimits | None = None):
    """Load ``source`` in a fresh bwrap sandbox and call each named function; return replies."""
    with SandboxSession(BwrapBackend(), limits) as session:
        op, reply = session.request(protocol.LOAD, source=textwrap.dedent(source), filename="submission.py")
        assert op == protocol.OK, reply
        return [call(session, name) for name in calls]


def value_of(source: str, name: str = "probe"):
    [(op, reply)] = run_in_sandbox(source, name)
    assert op == protocol.OK, reply
    return reply["value"]


def test_the_runtime_reports_its_device_once_a_submission_loads():
    with SandboxSession(BwrapBackend()) as session:
        assert session.wait_ready()["jax_version"]
        op, reply = session.request(protocol.LOAD, source="x = 1\n", filename="s.py")
        assert op == protocol.OK and reply["devices"] == 1
        assert session.info["device"].startswith("cpu") and session.info["backend"] == "bwrap"


@pytest.mark.slow
def test_a_problem_can_ask_for_several_host_cpu_devices():
    with SandboxSession(BwrapBackend()) as session:
        source = "import jax\ndef probe():\n    return [d.platform for d in jax.devices()]\n"
        op, reply = session.request(protocol.LOAD, source=source, filename="s.py", cpu_devices=4)
        assert op == protocol.OK and reply["devices"] == 4
        op, reply = call(session, "probe")
        assert op == protocol.OK and reply["value"] == ["cpu"] * 4
    with SandboxSession(BwrapBackend()) as session:
        op, reply = session.request(protocol.LOAD, source="x = 1\n", filename="s.py", cpu_devices=99)
        assert op == protocol.ERROR and "cpu_devices" in reply["message"]


def test_project_files_are_invisible():
    seen, listing = value_of(
        f"""
        import os
        def probe():
            paths = [{REPO + "/problems"!r}, {REPO + "/solutions"!r}, {REPO + "/grader"!r}, "/home", "/etc/passwd"]
            listing = os.listdir({REPO!r}) if os.path.isdir({REPO!r}) else []
            return [p for p in paths if os.path.exists(p)], listing
        """
    )
    assert seen == []
    assert listing == []  # the checkout is not there at all, not even as a mount point


def test_only_the_interpreter_is_mounted_read_only():
    result = value_of(
        """
        import os, sys
        def probe():
            written = []
            for path in [sys.prefix, sys.base_prefix, "/usr", "/opt/jaxjudge/sandbox"]:
                try:
                    open(os.path.join(path, "planted.py"), "w").write("x = 1")
                    written.append(path)
                except OSError:
                    pass
            return written
        """
    )
    assert result == []
    assert all(os.path.isdir(path) for path in interpreter_paths())


def test_environment_is_cleared_and_uid_is_unprivileged(monkeypatch):
    monkeypatch.setenv("JAXJUDGE_SECRET_CANARY", "hidden-value-1234")
    environ, uid = value_of(
        """
        import os
        def probe():
            return (dict(os.environ), os.getuid())
        """
    )
    # What the backend sets, plus what JAX and the shell set for themselves at start-up.
    # LD_LIBRARY_PATH: where a shared libpython is, at its neutral path.
    allowed = {
        "PATH", "LANG", "JAX_PLATFORMS", "XLA_FLAGS", "PWD", "TPU_SKIP_MDS_QUERY", "TF_CPP_MIN_LOG_LEVEL",
        "LD_LIBRARY_PATH",
    }  # fmt: skip
    assert set(environ) <= allowed
    assert environ["XLA_FLAGS"] == grading_xla_flags()
    assert environ.get("LD_LIBRARY_PATH", "/opt/python/lib") == "/opt/python/lib"
    assert "hidden-value-1234" not in str(environ)
    assert uid == 65534


def test_grading_xla_flags_join_an_operators_own_which_win():
    ours = "--xla_cpu_use_fusion_emitters=false --xla_backend_optimization_level=0"
    assert grading_xla_flags() == ours
    assert grading_xla_flags("--xla_dump_to=/x") == f"--xla_dump_to=/x {ours}"
    mine = "--xla_cpu_use_fusion_emitters=true"
    assert grading_xla_flags(mine) == f"{mine} --xla_backend_optimization_level=0"


@pytest.mark.slow
def test_tmp_is_fresh_and_private_for_each_sandbox():
    write = """
        import os
        def probe():
            before = os.listdir("/tmp")
            open("/tmp/left-behind", "w").write("x")
            return before
        """
    assert value_of(write) == []
    assert value_of(write) == []  # nothing left behind by the first sandbox


@pytest.mark.parametrize(
    "connect",
    [
        "socket.create_connection(('127.0.0.1', 22), timeout=2)",
        "socket.create_connection(('::1', 22), timeout=2)",
        "socket.create_connection(('1.1.1.1', 53), timeout=2)",
        "socket.socket(socket.AF_UNIX).connect('/run/systemd/private')",
    ],
)
def test_there_is_no_network(connect):
    result = value_of(
        f"""
        import socket
        def probe():
            try:
                {connect}
            except OSError as exc:
                return type(exc).__name__
            return "connected"
        """
    )
    assert result != "connected"


def test_only_its_own_processes_are_visible():
    pids = value_of(
        """
        import os
        def probe():
            return sorted(int(p) for p in os.listdir("/proc") if p.isdigit())
        """
    )
    assert max(pids) < 10


def test_printing_does_not_corrupt_the_channel():
    with SandboxSession(BwrapBackend()) as session:
        session.request(
            protocol.LOAD, source="def probe():\n    print('PASSED' * 100)\n    return 7\n", filename="s.py"
        )
        op, reply = call(session, "probe")
        assert (op, reply["value"]) == ("ok", 7)
        time.sleep(0.1)
        assert "PASSED" in session.output


@pytest.mark.slow
def test_infinite_loop_is_killed_at_the_deadline_with_its_escaped_children():
    limits = SandboxLimits(wall_seconds=30, call_seconds=2)
    # A daemon's escape: a session of its own, then orphaned by its parent's exit.
    source = """
        import os, time
        def probe():
            if not os.fork():
                os.setsid()
                if os.fork():
                    os._exit(0)
                time.sleep(10**6)
            while True:
                pass
        """
    with SandboxSession(BwrapBackend(), limits) as session:
        session.request(protocol.LOAD, source=textwrap.dedent(source), filename="s.py")
        started = time.monotonic()  # not before: a busy machine may take seconds to start a sandbox
        with pytest.raises(SandboxTimeout):
            call(session, "probe")
        assert session.killed_for_time and not session.alive
    assert time.monotonic() - started < 10  # the call's 2 s and the kill, far below the wall's 30 s
    # The double-forked child lived in the sandbox's PID namespace, which died with it.
    assert sandbox_processes() == set()


def test_os_exit_is_seen_as_a_crash():
    with SandboxSession(BwrapBackend()) as session:
        session.request(protocol.LOAD, source="import os\ndef probe():\n    os._exit(0)\n", filename="s.py")
        with pytest.raises(SandboxCrashed, match="exited with status 0"):
            call(session, "probe")


def test_forged_reply_bytes_on_the_channel_are_a_protocol_error_not_a_crash_of_the_harness():
    source = """
        import os
        def probe():
            # The channel's copy of stdout: write a frame announcing a huge payload.
            for fd in range(3, 20):
                try:
                    os.write(fd, b"\\xff\\xff\\xff\\xff")
                except OSError:
                    pass
            return 1
        """
    with SandboxSession(BwrapBackend()) as session:
        session.request(protocol.LOAD, source=textwrap.dedent(source), filename="s.py")
        try:
            op, _ = call(session, "probe")
        except Exception as exc:  # the harness refuses the frame and kills the sandbox
            assert type(exc).__name__ in ("SandboxProtocolError", "SandboxCrashed", "SandboxTimeout")
            assert not session.alive
        else:
            assert op == protocol.OK


def test_the_process_backend_runs_but_warns_that_it_does_not_isolate():
    with pytest.warns(RuntimeWarning, match="does NOT isolate"):
        backend = ProcessBackend()
    with SandboxSession(backend) as session:
        op, _ = session.request(
            protocol.LOAD, source="import os\ndef probe():\n    return os.getpid() > 1\n", filename="s.py"
        )
        assert op == protocol.OK
        assert call(session, "probe")[1]["value"] is True
        assert session.info["isolated"] is False


def test_unknown_backend_names_the_choices():
    with pytest.raises(BackendUnavailable, match="choose one of bwrap, docker, process"):
        get_backend("docker-ish")


@pytest.mark.slow
def test_without_cgroups_memory_is_capped_by_an_rlimit_jax_tolerates(monkeypatch, tmp_path):
    # A cgroup root with nothing in it: the backend must fall back to the address-space rlimit.
    monkeypatch.setattr("sandbox.host.cgroups.CGROUP_ROOT", tmp_path)
    source = """
        import jax, jax.numpy as jnp
        def compiles():
            x = jnp.arange(8.0)
            return float(jax.jit(jnp.sum).lower(x).compile()(x))
        def bomb():
            blocks = []
            while True:
                blocks.append(bytearray(256 * 2**20))
        """
    # Time enough for JAX's import and a compile on a busy machine: the limit tried here is memory's.
    limits = SandboxLimits(memory_bytes=512 * 2**20, call_seconds=90.0, wall_seconds=240.0)
    with SandboxSession(BwrapBackend(), limits) as session:
        assert session.cgroup is None and session.info["memory_limit"] == "rlimit"
        session.request(protocol.LOAD, source=textwrap.dedent(source), filename="s.py")
        assert call(session, "compiles")[1]["value"] == 28.0
        op, reply = call(session, "bomb")
        assert (op, reply["type"]) == ("error", "MemoryError")


def test_a_sandbox_that_cannot_start_is_the_hosts_fault_not_the_submissions(tmp_path):
    broken = tmp_path / "bwrap"
    broken.write_text("#!/bin/sh\necho 'bwrap: setting up uid map: Permission denied' >&2\nexit 1\n")
    broken.chmod(0o755)
    with (
        SandboxSession(BwrapBackend(executable=str(broken))) as session,
        pytest.raises(SandboxStartFailed, match="Permission denied"),
    ):
        session.wait_ready()


@pytest.mark.slow
def test_the_wall_clock_starts_when_the_sandbox_is_ready():
    with SandboxSession(BwrapBackend(), SandboxLimits(wall_seconds=3, call_seconds=3)) as session:
        time.sleep(3.5)  # longer than the wall limit, but spent before any submission ran
        session.request(protocol.LOAD, source="x = 1\n", filename="s.py")
        assert session.alive


@pytest.mark.slow
def test_a_real_cpu_limit_breach_is_a_time_limit_told_by_the_cpu_used():
    # The CPU limit counts from the sandbox's start (importing JAX takes a second or two of it).
    limits = SandboxLimits(cpu_seconds=4, wall_seconds=60, call_seconds=60)
    with pytest.raises(SandboxTimeout, match="4 s of CPU time"):
        run_in_sandbox("def probe():\n    while True:\n        pass\n", "probe", limits=limits)


def test_a_self_sent_sigxcpu_is_a_crash_not_a_time_limit():
    source = "import os, signal\ndef probe():\n    os.kill(os.getpid(), signal.SIGXCPU)\n"
    started = time.monotonic()
    with pytest.raises(SandboxCrashed, match=f"killed by signal {int(signal.SIGXCPU)}"):
        run_in_sandbox(source, "probe")
    assert time.monotonic() - started < 30


def test_no_host_path_is_visible_inside():
    blob = value_of(
        """
        import os, sys
        def probe():
            texts = [sys.executable, sys.prefix, sys.base_prefix, os.__file__, repr(sys.path)]
            # Not /proc/self/mountinfo: it names the source of every bind mount (see docs/sandbox-and-security.md).
            for path in ["/proc/self/maps", "/proc/self/environ", "/proc/self/cmdline"]:
                texts.append(open(path, "rb").read().decode(errors="replace"))
            import numpy, jax
            texts += [numpy.__file__, jax.__file__]
            return "\\n".join(texts)
        """
    )
    host_paths = [REPO, os.path.realpath(sys.base_prefix), "/root", ".venv", *interpreter_paths()]
    assert [path for path in host_paths if path in blob] == []
    assert "/opt/python" in blob or sys.base_prefix.startswith("/usr")


def test_dev_has_device_nodes_only_and_a_small_shm():
    result = value_of(
        """
        import os
        def probe():
            outcome = {}
            open("/dev/null", "w").write("fine")
            outcome["urandom"] = len(open("/dev/urandom", "rb").read(8))
            for path in ["/dev/fill", "/dev/shm/fill"]:
                written = 0
                try:
                    with open(path, "wb") as handle:
                        for _ in range(100):
                            handle.write(b"x" * 2**20)
                            handle.flush()
                            written += 1
                except OSError as exc:
                    outcome[path] = (written, exc.strerror)
                else:
                    outcome[path] = (written, None)
            return outcome
        """
    )
    assert result["urandom"] == 8
    assert result["/dev/fill"] == (0, "Read-only file system")
    written, error = result["/dev/shm/fill"]
    assert error is not None and written <= SandboxLimits().shm_bytes // 2**20
