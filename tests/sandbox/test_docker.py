"""The docker backend, tested without a Docker engine (none runs on these machines).

The command it builds is checked flag by flag. How it maps outcomes to verdicts is checked by
running real sandboxes through a stand-in for the docker client: a script that runs the
runtime directly for `docker run` and records `kill`, `inspect` and `rm`. That stand-in is
the one mock here, and it is there only because no engine can run.
"""

import itertools
import stat
import sys
import textwrap

import pytest

from sandbox import grading_xla_flags, protocol
from sandbox.host.backends import RUNTIME_MOUNT, SANDBOX_PACKAGE, DockerBackend, SandboxLimits
from sandbox.host.session import SandboxMemoryExceeded, SandboxSession, SandboxTimeout
from tests.conftest import call

LIMITS = SandboxLimits(memory_bytes=1024 * 2**20, max_processes=64, cpu_seconds=30, tmpfs_bytes=32 * 2**20)


def flags(command: list[str]) -> dict[str, list[str]]:
    """Each ``--flag value`` pair of a docker command, by flag."""
    found: dict[str, list[str]] = {}
    for flag, value in itertools.pairwise(command):
        if flag.startswith("--"):
            found.setdefault(flag, []).append(value)
    return found


def test_the_cpu_command_has_every_isolation_flag():
    command = DockerBackend(executable="docker").command(LIMITS, sandbox_id="jaxjudge-abc")
    assert command[:2] == ["docker", "run"]
    given = flags(command)
    assert given["--name"] == ["jaxjudge-abc"]
    assert given["--network"] == ["none"]
    assert "--read-only" in command
    assert given["--cap-drop"] == ["ALL"]
    assert given["--security-opt"] == ["no-new-privileges"]
    assert given["--user"] == ["65534:65534"]
    assert given["--memory"] == given["--memory-swap"] == [str(1024 * 2**20)]
    assert given["--pids-limit"] == ["64"]
    assert given["--tmpfs"] == [f"/tmp:rw,nosuid,nodev,size={32 * 2**20}"]
    assert set(given["--ulimit"]) == {"cpu=30:31", f"fsize={LIMITS.file_size_bytes}", "nofile=256:256", "core=0"}
    assert "--gpus" not in given
    # Nothing of the host is mounted into the container, and only the backend's variables are set.
    assert not {"-v", "--volume", "--mount", "--privileged", "--env-file"} & set(command)
    assert given["--env"] == [
        "PATH=/usr/bin:/bin",
        "LANG=C.UTF-8",
        "JAX_PLATFORMS=cpu",
        f"XLA_FLAGS={grading_xla_flags()}",
    ]
    image_at = command.index("jaxjudge-sandbox-cpu:latest")
    assert command[image_at + 1 : image_at + 4] == ["python", "-I", "-c"]
    assert f"sys.path.insert(0, {RUNTIME_MOUNT!r})" in command[-1]


def test_the_gpu_command_asks_for_the_gpu_and_grows_memory_on_demand():
    command = DockerBackend("gpu", executable="docker").command(LIMITS, sandbox_id="x")
    given = flags(command)
    assert given["--gpus"] == ["all"]
    assert "XLA_PYTHON_CLIENT_PREALLOCATE=false" in given["--env"]
    assert "JAX_PLATFORMS=cuda" in given["--env"]
    assert "jaxjudge-sandbox-gpu:latest" in command


def test_the_image_can_be_chosen_by_environment(monkeypatch):
    monkeypatch.setenv("JAXJUDGE_DOCKER_IMAGE_CPU", "registry.example/sandbox:1")
    assert "registry.example/sandbox:1" in DockerBackend(executable="docker").command(LIMITS)


@pytest.fixture
def fake_docker(tmp_path):
    """A stand-in docker client: runs the runtime locally and logs every other call."""
    log, oom = tmp_path / "calls.log", tmp_path / "oom"
    oom.write_text("false")
    script = tmp_path / "docker"
    script.write_text(
        textwrap.dedent(
            f"""\
            #!{sys.executable}
            import os, sys
            with open({str(log)!r}, "a") as handle:
                handle.write(" ".join(sys.argv[1:3]) + "\\n")
            if sys.argv[1] == "run":
                bootstrap = sys.argv[-1].replace({RUNTIME_MOUNT!r}, {str(SANDBOX_PACKAGE.parent)!r})
                os.execv({sys.executable!r}, [{sys.executable!r}, "-I", "-c", bootstrap])
            if sys.argv[1] == "inspect":
                print(open({str(oom)!r}).read())
            """
        )
    )
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return script, log, oom


@pytest.mark.slow
def test_a_deadline_kills_the_container_with_docker_kill(fake_docker):
    script, log, _ = fake_docker
    with SandboxSession(DockerBackend(executable=str(script)), SandboxLimits(call_seconds=2)) as session:
        session.request(protocol.LOAD, source="def probe():\n    while True:\n        pass\n", filename="s.py")
        with pytest.raises(SandboxTimeout):
            call(session, "probe")
    calls = log.read_text().splitlines()
    assert calls[0] == "run --interactive"
    assert f"kill {session.sandbox_id}" in calls
    assert session.info["memory_limit"] == "docker"


def test_an_oom_killed_container_is_memory_limit_exceeded(fake_docker):
    script, log, oom = fake_docker
    oom.write_text("true")  # what `docker inspect` says of a container the kernel killed for memory
    with SandboxSession(DockerBackend(executable=str(script))) as session:
        session.request(protocol.LOAD, source="import os\ndef probe():\n    os._exit(137)\n", filename="s.py")
        with pytest.raises(SandboxMemoryExceeded):
            call(session, "probe")
    calls = log.read_text().splitlines()
    assert "inspect --format" in calls and "rm --force" in calls


def test_a_container_that_is_not_oom_killed_is_a_crash(fake_docker):
    script, _, _ = fake_docker
    with SandboxSession(DockerBackend(executable=str(script))) as session:
        session.request(protocol.LOAD, source="import os\ndef probe():\n    os._exit(3)\n", filename="s.py")
        with pytest.raises(Exception) as error:
            call(session, "probe")
    assert type(error.value).__name__ == "SandboxCrashed"
    assert "status 3" in str(error.value)


def test_no_docker_client_is_a_clear_error(monkeypatch):
    monkeypatch.setenv("PATH", "/nonexistent")
    with pytest.raises(Exception, match="the docker client is not installed"):
        DockerBackend()
