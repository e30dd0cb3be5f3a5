"""Sandbox backends: how the in-sandbox runtime is started, with which isolation and limits.

Policy is data: a backend turns ``SandboxLimits`` and the interpreter's own paths into one
command line. ``bwrap`` is the default on Linux; ``process`` runs without any isolation and
exists only for machines that have no other choice.
"""

from __future__ import annotations

import glob
import os
import shutil
import site
import subprocess
import sys
import sysconfig
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from sandbox import grading_xla_flags
from sandbox.host.cgroups import SandboxCgroup
from sandbox.protocol import FORK_SERVER_VARIABLE, NOTEBOOK_VARIABLE

SANDBOX_PACKAGE = Path(__file__).resolve().parents[1]
RUNTIME_MOUNT = "/opt/jaxjudge"
# Where bwrap shows the interpreter and its packages: neutral paths, so that nothing inside the
# sandbox names the host's layout (the checkout, a home directory, a pyenv prefix).
PYTHON_MOUNT = "/opt/python"
SITE_PACKAGES_MOUNT = "/opt/site-packages"
# An unprivileged uid/gid inside the sandbox's user namespace ("nobody").
SANDBOX_UID = 65534


class BackendUnavailable(Exception):
    """The requested backend cannot run on this machine."""


@dataclass(frozen=True)
class SandboxLimits:
    """Limits of one sandbox. Each is enforced from outside the sandboxed process.

    ``wall_seconds`` bounds the whole life of the sandbox and ``call_seconds`` each request;
    the harness kills the sandbox (SIGKILL, every process in it) when either runs out.
    """

    wall_seconds: float = 60.0
    call_seconds: float = 20.0
    cpu_seconds: int = 120
    memory_bytes: int = 2 * 2**30
    max_processes: int = 256  # threads count too: JAX starts a few dozen
    file_size_bytes: int = 16 * 2**20
    open_files: int = 256
    tmpfs_bytes: int = 64 * 2**20  # /tmp
    shm_bytes: int = 16 * 2**20  # /dev/shm
    output_bytes: int = 64 * 2**10  # of stdout and stderr, kept for the report
    output_limit_bytes: int = 4 * 2**20  # printing more than this is output_limit_exceeded


# Without a cgroup, memory can only be capped as address space. JAX reserves far more
# address space than it touches (about 1.5 GiB right after `import jax`, measured), so the
# cap is the memory limit plus this much room.
ADDRESS_SPACE_HEADROOM = 4 * 2**30


class Backend:
    """Builds the command that starts the runtime under some isolation.

    ``device`` is ``cpu`` or ``gpu``: a GPU sandbox gets the GPU's device nodes and driver
    (bwrap) or ``--gpus`` (docker), and JAX is told to use it.
    """

    name = "base"
    isolated = False
    # Whether the session should put the sandbox in cgroups of this host (docker has its own).
    uses_host_cgroups = True

    def __init__(self, device: str = "cpu") -> None:
        if device not in ("cpu", "gpu"):
            raise BackendUnavailable(f"unknown device {device!r}; choose cpu or gpu")
        self.device = device

    def command(
        self,
        limits: SandboxLimits,
        *,
        cgroup_prefix: Sequence[str] = (),
        sandbox_id: str = "sandbox",
        notebook: bool = False,
        fork_server_fd: int | None = None,
    ) -> list[str]:
        """The command line; ``cgroup_prefix`` (from ``SandboxCgroup``) enforces memory and pids.

        ``notebook``: the sandbox runs a notebook, wholly inside (its kernel and nbclient); it
        shares nothing with the host but its pipes. ``fork_server_fd`` makes the sandbox a fork
        server (``sandbox.host.forkserver``) controlled over that fd.
        """
        return self.isolated_command(limits, cgroup_prefix, sandbox_id, self.environment(notebook, fork_server_fd))

    def isolated_command(
        self, limits: SandboxLimits, cgroup_prefix: Sequence[str], sandbox_id: str, environment: dict[str, str]
    ) -> list[str]:
        """This backend's command line, for a runtime that must see exactly ``environment``."""
        raise NotImplementedError

    # Whether the backend can run a fork server (one sandbox forking single-use runtimes).
    supports_fork_server = False

    def environment(self, notebook: bool = False, fork_server_fd: int | None = None) -> dict[str, str]:
        # The runtime sees nothing of the worker's environment: no secrets, no paths.
        env = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "JAX_PLATFORMS": "cpu", "XLA_FLAGS": grading_xla_flags()}
        if self.device == "gpu":
            # Allocate GPU memory as needed: a sandbox must not take the whole device.
            env.update({"JAX_PLATFORMS": "cuda", "XLA_PYTHON_CLIENT_PREALLOCATE": "false"})
        if notebook:
            env[NOTEBOOK_VARIABLE] = "1"
        if fork_server_fd is not None:
            env[FORK_SERVER_VARIABLE] = str(fork_server_fd)
        return env

    def sandbox_cgroup(self, limits: SandboxLimits) -> SandboxCgroup | None:
        """A cgroup of this host for one sandbox under ``limits``; None where the backend has
        cgroups of its own (docker) or this host gives none (then rlimits are all there is)."""
        if not self.uses_host_cgroups:
            return None
        return SandboxCgroup.create(memory_bytes=limits.memory_bytes, max_pids=limits.max_processes)

    def terminate(self, sandbox_id: str) -> None:
        """Stop a sandbox that outlives its client process (only docker's does)."""

    def was_oom_killed(self, sandbox_id: str) -> bool:
        """Whether the backend saw the sandbox killed for memory (where the host's cgroups cannot)."""
        return False

    def resource_limits(self, limits: SandboxLimits, cgroup_prefix: Sequence[str]) -> list[str]:
        """``prlimit`` options: set before exec, inherited by everything in the sandbox."""
        options = [
            f"--cpu={limits.cpu_seconds}:{limits.cpu_seconds + 1}",  # SIGXCPU, then SIGKILL
            f"--fsize={limits.file_size_bytes}",
            f"--nofile={limits.open_files}",
            "--core=0",
        ]
        if not cgroup_prefix:
            options.append(f"--as={limits.memory_bytes + ADDRESS_SPACE_HEADROOM}")
        return [*cgroup_prefix, "prlimit", *options, "--"]


class BwrapBackend(Backend):
    """bubblewrap: every namespace unshared, read-only interpreter, nothing else of the host."""

    name = "bwrap"
    isolated = True
    supports_fork_server = True

    def __init__(
        self, device: str = "cpu", *, executable: str | None = None, gpu_paths: Sequence[str] | None = None
    ) -> None:
        super().__init__(device)
        found = executable or shutil.which("bwrap")
        if found is None:
            raise BackendUnavailable(
                "bubblewrap (bwrap) is not installed; run `make setup` or apt-get install bubblewrap"
            )
        self.executable = found
        self.gpu_paths = list(gpu_paths if gpu_paths is not None else gpu_host_paths()) if device == "gpu" else []
        if device == "gpu" and not any(path.startswith("/dev/nvidia") for path in self.gpu_paths):
            raise BackendUnavailable("this host has no NVIDIA GPU (no /dev/nvidia* device nodes)")

    def isolated_command(
        self, limits: SandboxLimits, cgroup_prefix: Sequence[str], sandbox_id: str, environment: dict[str, str]
    ) -> list[str]:
        args = [
            self.executable,
            "--unshare-all",
            "--unshare-user",
            "--uid",
            str(SANDBOX_UID),
            "--gid",
            str(SANDBOX_UID),
            "--die-with-parent",
            "--new-session",
            "--cap-drop",
            "ALL",
            "--clearenv",
            "--hostname",
            "sandbox",
            "--ro-bind",
            "/usr",
            "/usr",
        ]
        for name in ("bin", "lib", "lib64", "sbin"):
            if os.path.islink(f"/{name}"):
                args += ["--symlink", os.readlink(f"/{name}"), f"/{name}"]
            elif os.path.isdir(f"/{name}"):
                args += ["--ro-bind", f"/{name}", f"/{name}"]
        # /dev holds the device nodes only: bwrap's /dev is a tmpfs as large as the host's
        # memory, so it is made read-only, with a small /dev/shm beside it.
        args += ["--proc", "/proc", "--dev", "/dev", "--size", str(limits.shm_bytes), "--tmpfs", "/dev/shm"]
        args += ["--remount-ro", "/dev"]
        args += ["--size", str(limits.tmpfs_bytes), "--tmpfs", "/tmp"]
        interpreter = SandboxInterpreter.of_this_process()
        for host_path, sandbox_path in interpreter.mounts:
            args += ["--ro-bind", host_path, sandbox_path]
        for path in self.gpu_paths:
            # Device nodes need --dev-bind to stay usable; driver libraries are read-only.
            args += ["--dev-bind", path, path] if path.startswith("/dev/") else ["--ro-bind", path, path]
        args += ["--ro-bind", str(SANDBOX_PACKAGE), f"{RUNTIME_MOUNT}/sandbox", "--chdir", "/tmp"]
        for key, value in {**environment, **interpreter.environment}.items():
            args += ["--setenv", key, value]
        command = [interpreter.executable, "-I", "-c", runtime_bootstrap(RUNTIME_MOUNT, interpreter.site_dirs)]
        return [*self.resource_limits(limits, cgroup_prefix), *args, "--", *command]


class ProcessBackend(Backend):
    """No isolation at all: resource limits only. Never for untrusted code."""

    name = "process"
    isolated = False
    # A fork server ends each submission by killing every process it can signal and emptying
    # /tmp: safe in a sandbox of its own, ruinous on the host itself.
    supports_fork_server = False

    def __init__(self, device: str = "cpu") -> None:
        super().__init__(device)
        warnings.warn(
            "the 'process' sandbox backend does NOT isolate submissions: they can read "
            "hidden tests and harm this machine. Use it only for code you trust.",
            RuntimeWarning,
            stacklevel=2,
        )

    def isolated_command(
        self, limits: SandboxLimits, cgroup_prefix: Sequence[str], sandbox_id: str, environment: dict[str, str]
    ) -> list[str]:
        # The runtime inherits its environment from the session's Popen (see ``environment``).
        return [*self.resource_limits(limits, cgroup_prefix), *runtime_command(str(SANDBOX_PACKAGE.parent))]


class DockerBackend(Backend):
    """One fresh container per submission, from the CPU or the GPU image (for hosts without
    bubblewrap; the compose stack's workers run bwrap sandboxes in their own containers).

    The image (``sandbox/Dockerfile.cpu`` or ``.gpu``) holds Python, the pinned JAX and this
    package at /opt/jaxjudge. Docker enforces memory, processes and the read-only root; the
    harness enforces deadlines and stops the container with ``docker kill``.
    """

    name = "docker"
    isolated = True
    uses_host_cgroups = False
    IMAGES: ClassVar[dict[str, str]] = {"cpu": "jaxjudge-sandbox-cpu:latest", "gpu": "jaxjudge-sandbox-gpu:latest"}

    def __init__(self, device: str = "cpu", *, executable: str | None = None, image: str | None = None) -> None:
        super().__init__(device)
        found = executable or shutil.which("docker")
        if found is None:
            raise BackendUnavailable("the docker client is not installed")
        self.executable = found
        self.image = image or os.environ.get(f"JAXJUDGE_DOCKER_IMAGE_{device.upper()}", self.IMAGES[device])

    def isolated_command(
        self, limits: SandboxLimits, cgroup_prefix: Sequence[str], sandbox_id: str, environment: dict[str, str]
    ) -> list[str]:
        args = [
            self.executable, "run", "--interactive", "--name", sandbox_id,
            "--network", "none",
            "--read-only",
            "--cap-drop", "ALL",
            "--security-opt", "no-new-privileges",
            "--user", f"{SANDBOX_UID}:{SANDBOX_UID}",
            "--memory", str(limits.memory_bytes),
            "--memory-swap", str(limits.memory_bytes),  # equal: no swap beyond the memory limit
            "--pids-limit", str(limits.max_processes),
            "--tmpfs", f"/tmp:rw,nosuid,nodev,size={limits.tmpfs_bytes}",
            "--ulimit", f"cpu={limits.cpu_seconds}:{limits.cpu_seconds + 1}",
            "--ulimit", f"fsize={limits.file_size_bytes}",
            "--ulimit", f"nofile={limits.open_files}:{limits.open_files}",
            "--ulimit", "core=0",
            "--workdir", "/tmp",
            "--log-driver", "none",
        ]  # fmt: skip
        if self.device == "gpu":
            args += ["--gpus", "all"]
        for key, value in environment.items():
            args += ["--env", f"{key}={value}"]
        return [*args, self.image, "python", "-I", "-c", runtime_bootstrap(RUNTIME_MOUNT)]

    def terminate(self, sandbox_id: str) -> None:
        # Killing the client leaves the container running: kill the container itself.
        subprocess.run([self.executable, "kill", sandbox_id], capture_output=True, check=False, timeout=30)

    def was_oom_killed(self, sandbox_id: str) -> bool:
        inspect = [self.executable, "inspect", "--format", "{{.State.OOMKilled}}", sandbox_id]
        result = subprocess.run(inspect, capture_output=True, text=True, check=False, timeout=30)
        subprocess.run([self.executable, "rm", "--force", sandbox_id], capture_output=True, check=False, timeout=30)
        return result.stdout.strip() == "true"


def gpu_host_paths() -> list[str]:
    """The NVIDIA device nodes of this host (empty without a GPU).

    The driver's libraries need no binding of their own: they live under /usr, which every
    sandbox mounts read-only already.
    """
    return sorted(glob.glob("/dev/nvidia*"))


def runtime_bootstrap(package_parent: str, site_dirs: Sequence[str] = ()) -> str:
    """Python code that adds ``site_dirs``, imports the runtime from ``package_parent`` and serves."""
    return (
        f"import site, sys; [site.addsitedir(d) for d in {list(site_dirs)!r}]; "
        f"sys.path.insert(0, {package_parent!r}); from sandbox.inside.runtime import main; main()"
    )


def runtime_command(package_parent: str) -> list[str]:
    """Start the runtime with ``python -I`` (no environment, no user site, no cwd on the path)."""
    return [sys.executable, "-I", "-c", runtime_bootstrap(package_parent)]


@dataclass(frozen=True)
class SandboxInterpreter:
    """This process's Python as a bwrap sandbox sees it, at neutral paths.

    The base installation (unless it lives under /usr, which every sandbox mounts) appears at
    ``/opt/python`` and each site-packages directory of a virtualenv at
    ``/opt/site-packages/N``; the runtime starts the base interpreter and adds those
    directories itself (``site.addsitedir``, so ``.pth`` files still work).
    """

    mounts: tuple[tuple[str, str], ...]  # (host path, path inside the sandbox)
    executable: str
    site_dirs: tuple[str, ...]
    environment: dict[str, str]

    @classmethod
    def of_this_process(cls) -> SandboxInterpreter:
        base = os.path.realpath(sys.base_prefix)
        executable = os.path.realpath(sys.executable)
        mounts: list[tuple[str, str]] = []
        environment: dict[str, str] = {}

        def inside(path: str) -> str | None:
            for host_path, sandbox_path in mounts:
                if path == host_path or path.startswith(host_path + os.sep):
                    return sandbox_path + path[len(host_path) :]
            return path if _under_usr(path) else None

        if not _under_usr(base):
            mounts.append((base, PYTHON_MOUNT))
            if glob.glob(os.path.join(base, "lib", "libpython*.so*")):
                # A shared libpython is found through an absolute RUNPATH naming the host path.
                environment["LD_LIBRARY_PATH"] = f"{PYTHON_MOUNT}/lib"
        executable_inside = inside(executable)
        if executable_inside is None:
            mounts.append((os.path.dirname(executable), f"{PYTHON_MOUNT}-bin"))
            executable_inside = f"{PYTHON_MOUNT}-bin/{os.path.basename(executable)}"
        site_dirs: list[str] = []
        for path in _site_packages():
            mapped = inside(path)
            if mapped is None:
                mapped = f"{SITE_PACKAGES_MOUNT}/{len(site_dirs)}"
                mounts.append((path, mapped))
            site_dirs.append(mapped)
        return cls(tuple(mounts), executable_inside, tuple(site_dirs), environment)


def _under_usr(path: str) -> bool:
    return path == "/usr" or path.startswith("/usr/")


def _site_packages() -> list[str]:
    """The site-packages directories this process imports from, real paths, in order."""
    found: list[str] = []
    for path in [*site.getsitepackages(), sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]]:
        real = os.path.realpath(path)
        if os.path.isdir(real) and real not in found:
            found.append(real)
    return found


def interpreter_paths() -> list[str]:
    """The host directories a bwrap sandbox mounts for the interpreter (outside /usr)."""
    return [host_path for host_path, _ in SandboxInterpreter.of_this_process().mounts]


BACKENDS: dict[str, type[Backend]] = {"bwrap": BwrapBackend, "docker": DockerBackend, "process": ProcessBackend}


def get_backend(name: str | None = None, device: str = "cpu") -> Backend:
    """The backend called ``name``, or the one named by ``JAXJUDGE_SANDBOX`` (default bwrap)."""
    chosen = name or os.environ.get("JAXJUDGE_SANDBOX", "bwrap")
    backend_class = BACKENDS.get(chosen)
    if backend_class is None:
        raise BackendUnavailable(f"unknown sandbox backend {chosen!r}; choose one of {', '.join(BACKENDS)}")
    return backend_class(device)
