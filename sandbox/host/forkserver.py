"""A fork server: one warm sandbox that forks a single-use runtime for each submission.

Starting a sandbox costs more than a CPU-second, nearly all of it importing JAX (and IPython,
for notebooks). A fork server pays that once: it is a sandbox like any other (same backend,
mounts and limits) whose runtime imports what every submission needs and then, on request,
forks a child that serves one submission on three pipes of its session (passed over a Unix
socket). The child is the submission's process; the session moves it into the session's own
cgroup before sending it anything, and kills it like any sandbox process.

One child at a time. When the session ends, the fork server kills every other process of its
sandbox, reaps them and empties ``/tmp`` and ``/dev/shm`` (a notebook's kernel sockets among
what it made) before forking again, so nothing one submission did reaches the next. The
submission runs in PID, user, IPC and mount namespaces of its own, where it can neither see
nor signal the fork server, which runs no submission code and is not dumpable
(``sandbox.inside.forks``). Any answer of the fork server's that is late or malformed
discards its whole sandbox, and the next submission gets a fresh one.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import signal
import socket
import subprocess
import threading
import uuid
from pathlib import Path
from typing import Any

from sandbox import protocol
from sandbox.host.backends import Backend, SandboxLimits

GO = b"\x00"  # see sandbox.inside.forks._become_submission
STARTUP_SECONDS = 120.0  # importing JAX on a slow or busy host
CONTROL_SECONDS = 10.0  # forking, or cleaning up after a submission
MAX_PID = 2**22  # Linux's pid_max cannot be larger


class ForkServerError(Exception):
    """The fork server could not fork or clean up; it has been discarded."""


class ForkServerUnsupported(ForkServerError):
    """This host cannot give a fork server's children namespaces of their own (unprivileged
    user namespaces are off): an isolating backend must start a sandbox per submission."""


class ForkServer:
    """One fork server sandbox; ``fork`` gives the process of one submission."""

    def __init__(self, backend: Backend, limits: SandboxLimits | None = None, *, notebook: bool = False) -> None:
        if not backend.supports_fork_server:
            raise ValueError(f"the {backend.name} backend cannot run a fork server")
        self.backend = backend
        self.limits = limits or SandboxLimits()
        self.notebook = notebook
        self.sandbox_id = f"jaxjudge-forks-{uuid.uuid4().hex[:12]}"
        self.cgroup = backend.sandbox_cgroup(self.limits)
        self.control, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        with theirs:
            self.process = subprocess.Popen(
                backend.command(
                    self.limits,
                    cgroup_prefix=self.cgroup.enter_prefix() if self.cgroup else (),
                    sandbox_id=self.sandbox_id,
                    notebook=notebook,
                    fork_server_fd=theirs.fileno(),
                ),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                env=backend.environment(notebook, theirs.fileno()),
                pass_fds=(theirs.fileno(),),
                start_new_session=True,
            )
        self._stderr_tail = b""
        self._stderr_thread = threading.Thread(target=self._drain_stderr, daemon=True)
        self._stderr_thread.start()
        self.ready: dict[str, Any] | None = None
        self._namespace_depth: int | None = None
        self.busy = False
        self.closed = False

    @property
    def alive(self) -> bool:
        return not self.closed and self.process.poll() is None

    def wait_ready(self) -> dict[str, Any]:
        """Block until the fork server has imported JAX; what it announced."""
        if self.ready is None:
            self.ready = self._receive(protocol.READY, STARTUP_SECONDS)
            if self.backend.isolated and self.ready.get(protocol.NAMESPACES) is not True:
                self.close()
                raise ForkServerUnsupported("a fork server's children cannot have namespaces of their own here")
        return self.ready

    def poll_ready(self) -> bool:
        """Whether the fork server is ready, without waiting (it is, once it said so)."""
        if self.ready is None and self.alive and select.select([self.control], [], [], 0)[0]:
            try:
                self.wait_ready()
            except ForkServerUnsupported:
                raise
            except ForkServerError:  # it is gone; the pool replaces it
                pass
        return self.ready is not None

    def fork(self) -> ForkedProcess:
        """A new child serving one submission (with a kernel prepared, in a notebook fork server)."""
        self.wait_ready()
        if self.busy:
            raise ForkServerError("the fork server is still serving a submission")
        pipes = [os.pipe() for _ in range(3)]  # the child's stdin, stdout and stderr
        theirs = [pipes[0][0], pipes[1][1], pipes[2][1]]
        ours = [pipes[0][1], pipes[1][0], pipes[2][0]]
        try:
            socket.send_fds(self.control, [json.dumps({"op": protocol.FORK}).encode()], theirs)
        except OSError:
            for fd in ours:
                os.close(fd)
            self.close()
            raise ForkServerError("the fork server is gone") from None
        finally:
            for fd in theirs:
                os.close(fd)
        self.busy = True
        try:
            pid = self._receive(protocol.FORKED, CONTROL_SECONDS).get(protocol.PID)
            if type(pid) is not int or not 0 < pid < MAX_PID:
                raise ForkServerError(f"the fork server answered with a bad pid: {str(pid)[:40]!r}")
            return ForkedProcess(self, self._host_pid(pid), *ours)
        except BaseException:
            for fd in ours:
                os.close(fd)
            self.close()
            raise

    def end(self) -> tuple[int | None, float]:
        """The current child's submission is over: clean up for the next. Its exit status
        (None when the fork server did not answer, which discards it) and CPU seconds, as the
        fork server saw them (the session's cgroup is the better witness where there is one)."""
        if not self.busy or self.closed:
            return None, 0.0
        try:
            self.control.send(json.dumps({"op": protocol.END}).encode())
            ended = self._receive(protocol.ENDED, CONTROL_SECONDS)
        except (OSError, ForkServerError):
            self.close()
            return None, 0.0
        self.busy = False
        status, cpu_seconds = ended.get(protocol.STATUS), ended.get(protocol.CPU_SECONDS)
        if not (type(status) is int and -64 < status < 256):
            status = None
        if not (isinstance(cpu_seconds, int | float) and 0 <= cpu_seconds < 1e7):
            cpu_seconds = 0.0
        return status, float(cpu_seconds)

    def close(self) -> None:
        """Kill the fork server's sandbox and everything in it; idempotent."""
        if self.closed:
            return
        self.closed = True
        if self.process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()
        self.control.close()
        self._stderr_thread.join(timeout=1)
        if self.cgroup is not None:
            self.cgroup.remove()

    def __enter__(self) -> ForkServer:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # -- the control channel -------------------------------------------------------------------

    def _receive(self, op: str, seconds: float) -> dict[str, Any]:
        """The next control message, which must be ``op``; anything else discards the server."""
        readable = select.select([self.control], [], [], seconds)[0]
        if not readable:
            self.close()
            raise ForkServerError(f"the fork server did not say {op!r} in {seconds:g} s{self._last_words()}")
        try:
            message = self.control.recv(protocol.MAX_CONTROL_LINE_BYTES)
        except OSError:
            message = b""
        if not message:
            self.close()
            raise ForkServerError(f"the fork server stopped{self._last_words()}")
        try:
            fields = json.loads(message)
        except ValueError:
            fields = None
        if not isinstance(fields, dict) or fields.get("op") != op:
            self.close()
            raise ForkServerError(f"the fork server sent something else than {op!r}")
        return fields

    def _host_pid(self, sandbox_pid: int) -> int:
        """The pid, in this process's namespace, of the process the fork server calls ``sandbox_pid``.

        Looked up among the fork server's descendants only, by ``NSpid`` (a process's pid in
        each of its namespaces, outermost first), at the depth of the fork server's own
        namespace: no answer can name a process of the host.
        """
        depth = self._depth()
        for pid in self._descendants():
            pids = _namespace_pids(pid)
            if len(pids) > depth and pids[depth] == sandbox_pid and pid != self.process.pid:
                return pid
        raise ForkServerError(f"the fork server's child {sandbox_pid} is not among its processes")

    def _depth(self) -> int:
        """How many PID namespaces deep the fork server runs (0: this process's own)."""
        assert self.ready is not None
        if self._namespace_depth is None:
            announced = self.ready.get(protocol.PID)
            for pid in self._descendants():
                pids = _namespace_pids(pid)
                if pids and pids[-1] == announced:
                    self._namespace_depth = len(pids) - 1
                    break
            else:
                raise ForkServerError("the fork server is not among its own processes")
        return self._namespace_depth

    def _descendants(self) -> list[int]:
        found, pending = [], [self.process.pid]
        while pending:
            pid = pending.pop()
            if pid not in found:
                found.append(pid)
                pending += _children(pid)
        return found

    def _last_words(self) -> str:
        tail = protocol.printable(self._stderr_tail.decode("utf-8", errors="replace")).strip().splitlines()
        return f": {tail[-1][:300]}" if tail else ""

    def _drain_stderr(self) -> None:
        assert self.process.stderr is not None
        for chunk in iter(lambda: os.read(self.process.stderr.fileno(), 65536), b""):  # type: ignore[union-attr]
            self._stderr_tail = (self._stderr_tail + chunk)[-4096:]
        self.process.stderr.close()


class ForkedProcess:
    """A fork server's child as a session sees its process: pipes, a pid, kill and reap."""

    def __init__(self, server: ForkServer, pid: int, stdin: int, stdout: int, stderr: int) -> None:
        self.server = server
        self.pid = pid
        self.stdin = os.fdopen(stdin, "wb", buffering=0)
        self.stdout = os.fdopen(stdout, "rb", buffering=0)
        self.stderr = os.fdopen(stderr, "rb", buffering=0)
        self.returncode: int | None = None
        try:
            self._pidfd: int | None = os.pidfd_open(pid)
        except ProcessLookupError:  # already gone
            self._pidfd = None

    def start(self) -> None:
        """Let the child start the submission's process (once it is where it must be: the
        session's cgroup, which that process and all it starts are then born in)."""
        self.stdin.write(GO)

    def exited(self) -> bool:
        if self.returncode is not None or self._pidfd is None:
            return True
        return bool(select.select([self._pidfd], [], [], 0)[0])

    def kill(self) -> None:
        if self._pidfd is not None:
            with contextlib.suppress(ProcessLookupError):
                signal.pidfd_send_signal(self._pidfd, signal.SIGKILL)

    def reap(self) -> tuple[int, float]:
        """Kill it (and everything it started) through the fork server; its exit status and
        CPU seconds."""
        self.kill()
        status, cpu_seconds = self.server.end()
        if self._pidfd is not None:
            os.close(self._pidfd)
            self._pidfd = None
        self.returncode = status if status is not None else -signal.SIGKILL
        return self.returncode, cpu_seconds


def _children(pid: int) -> list[int]:
    children: list[int] = []
    with contextlib.suppress(OSError):
        for task in os.scandir(f"/proc/{pid}/task"):
            with contextlib.suppress(OSError):
                children += [int(child) for child in Path(task.path, "children").read_text().split()]
    return children


def _namespace_pids(pid: int) -> list[int]:
    """A process's pid in each PID namespace it is in, outermost first (empty if it is gone)."""
    with contextlib.suppress(OSError, ValueError):
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("NSpid:"):
                return [int(number) for number in line.split()[1:]]
    return []
