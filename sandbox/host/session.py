"""One sandbox process seen from the trusted side: start, request/reply with deadlines, kill.

Everything read from the sandbox is hostile: frames are capped, replies are decoded
strictly, and a sandbox that stops answering in time is killed with every process in it.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import subprocess
import time
import uuid
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from sandbox import protocol
from sandbox.host.backends import Backend, SandboxLimits
from sandbox.host.forkserver import ForkedProcess, ForkServer, ForkServerError
from sandbox.host.printed_output import PrintedOutput

# The kernel counts CPU time in ticks and, on a busy host, sends SIGXCPU when the CPU time
# measured afterwards is under the limit: a few percent (1.91 s for a 2 s limit, seen here),
# more than 5 % with four processes to a core, and more than 15 % of a 4 s limit while both
# lanes of `make test` loaded this 2-core machine. A breach is told within this fraction; a
# submission that sends itself SIGXCPU before half its limit is not (a crash, as it is).
CPU_LIMIT_TOLERANCE = 0.5
# How long the runtime may take to import JAX and say it is ready, on a slow or busy host.
STARTUP_SECONDS = 120.0


class SandboxError(Exception):
    """The sandbox could not answer; the subclass says why."""


class SandboxTimeout(SandboxError):
    """A deadline (wall clock or CPU time) ran out and the sandbox was killed."""


class SandboxMemoryExceeded(SandboxError):
    """The sandbox used more memory than its limit and the kernel killed it."""


class SandboxOutputExceeded(SandboxError):
    """The submission printed more than its output limit and the sandbox was killed."""


class SandboxStartFailed(SandboxError):
    """The sandbox never became ready: a fault of the host, not of any submission."""


class SandboxCrashed(SandboxError):
    """The sandbox exited or closed its channel before answering."""


class SandboxProtocolError(SandboxError):
    """The sandbox answered with something that breaks the protocol."""


class SpawnedProcess:
    """The process of a sandbox started for one submission (``ForkedProcess`` is the other kind)."""

    def __init__(self, popen: subprocess.Popen[bytes]) -> None:
        self.popen = popen
        self.pid = popen.pid
        self.stdin, self.stdout, self.stderr = popen.stdin, popen.stdout, popen.stderr
        self.returncode: int | None = None

    def exited(self) -> bool:
        if self.returncode is not None:
            return True
        # Peek without reaping, so that reap() still gets the exit status and its rusage.
        return os.waitid(os.P_PID, self.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None

    def kill(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.pid, signal.SIGKILL)

    def reap(self) -> tuple[int, float]:
        """Kill every process of the sandbox; its exit status and the CPU seconds it used."""
        self.kill()
        # wait4 rather than Popen.wait: its resource usage tells CPU-time kills apart.
        _, status, usage = os.wait4(self.pid, 0)
        self.returncode = self.popen.returncode = os.waitstatus_to_exitcode(status)
        return self.returncode, usage.ru_utime + usage.ru_stime


class SandboxSession:
    """A running sandbox, single use: one submission, then killed.

    The sandbox is started for it, or forked by a ``ForkServer`` (a warm sandbox that has
    imported JAX already): either way the submission's process serves this session only.
    """

    def __init__(
        self,
        backend: Backend,
        limits: SandboxLimits | None = None,
        *,
        notebook: bool = False,
        fork_server: ForkServer | None = None,
    ) -> None:
        self.backend = backend
        self.limits = limits or SandboxLimits()
        self.started_at = time.monotonic()
        self.info: dict[str, Any] = {"backend": backend.name, "isolated": backend.isolated}
        self.killed_for_time = False
        self.sandbox_id = f"jaxjudge-{uuid.uuid4().hex[:16]}"
        self.cgroup = backend.sandbox_cgroup(self.limits)
        self.info["memory_limit"] = (
            "cgroup" if self.cgroup else ("rlimit" if backend.uses_host_cgroups else backend.name)
        )
        # A sandbox for a notebook prepares an IPython kernel while it starts, inside it, where
        # the notebook will run: nothing of the kernel is shared with this side.
        self.notebook = notebook
        self.process: SpawnedProcess | ForkedProcess
        if fork_server is not None:
            try:
                if fork_server.notebook != notebook:
                    raise ForkServerError("the fork server prepares sandboxes of another kind")
                self.process = fork_server.fork()
                if self.cgroup is not None:  # before the child starts the submission's process
                    self.cgroup.add(self.process.pid)
                self.process.start()
            except (ForkServerError, OSError):
                self._discard_start()
                raise
            self.info["fork_server"] = True
        else:
            self.process = SpawnedProcess(
                subprocess.Popen(
                    backend.command(
                        self.limits,
                        cgroup_prefix=self.cgroup.enter_prefix() if self.cgroup else (),
                        sandbox_id=self.sandbox_id,
                        notebook=notebook,
                    ),
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE,
                    env=backend.environment(notebook),
                    start_new_session=True,
                    close_fds=True,
                )
            )
        assert self.process.stderr is not None
        self.printed = PrintedOutput(
            self.process.stderr,
            kept_bytes=self.limits.output_bytes,
            limit_bytes=self.limits.output_limit_bytes,
            stop=self.process.kill,
        )
        self._ready: dict[str, Any] | None = None
        self._oom_killed = False
        self._closed = False
        self._stopped = False  # by stop(), from another thread
        self.cpu_seconds = 0.0
        # Every frame sent to the sandbox, when a caller wants to check what crossed (validation).
        self.sent: list[bytes] | None = None

    def _discard_start(self) -> None:
        """Undo what a start that failed had made."""
        if self.cgroup is not None:
            self.cgroup.remove()

    # -- lifecycle -------------------------------------------------------------------------

    def use_problem_limits(self, limits: SandboxLimits) -> None:
        """Adopt a problem's deadlines and memory limit in a sandbox already started.

        Sandboxes start before anyone knows which problem they will serve (that is how their
        start-up is hidden). Deadlines are enforced here and the memory limit by the cgroup,
        so both can still be set then; the rlimits fixed at start stay as they were.
        """
        if self._ready is not None:
            self.started_at = time.monotonic()  # a pooled sandbox: the submission's clock starts now
        self.limits = replace(
            self.limits,
            wall_seconds=limits.wall_seconds,
            call_seconds=limits.call_seconds,
            memory_bytes=limits.memory_bytes if self.cgroup else self.limits.memory_bytes,
        )
        if self.cgroup is not None:
            self.cgroup.set_memory_limit(limits.memory_bytes)

    def give_back(self, seconds: float) -> None:
        """Seconds the platform spent on a request of its own (the insight): not the
        submission's, so its deadline moves by as much."""
        self.started_at += max(0.0, seconds)

    def wait_ready(self) -> dict[str, Any]:
        """Block until the runtime has imported JAX and announced itself.

        Starting up is not the submission's time: its wall clock starts once this returns.
        """
        if self._ready is None:
            try:
                op, fields = self._receive(time.monotonic() + STARTUP_SECONDS)
            except SandboxError as exc:
                detail = self.output.strip().splitlines()[-1:] or [str(exc)]
                raise SandboxStartFailed(f"the sandbox did not start: {detail[0][:300]}") from None
            if op != protocol.READY:
                self.close()
                raise SandboxStartFailed(f"the sandbox did not start: it sent {op!r} instead of ready")
            self._ready = fields
            self.started_at = time.monotonic()
            self._cpu_mark("cpu_ready_s")
            self.info["jax_version"] = str(fields.get(protocol.JAX_VERSION, ""))[:200]
        return self._ready

    def request(
        self, op: str, *, while_waiting: Callable[[], None] | None = None, **fields: Any
    ) -> tuple[str, dict[str, Any]]:
        """Send one request and return the decoded reply, within the call deadline.

        A notebook's cells may take the sandbox's whole time, and no more: whatever the
        notebook does, the sandbox is killed at its deadline. ``while_waiting`` is called once
        the request is sent, before the reply is read: work of the harness's own (started in
        a thread) then overlaps the sandbox's.
        """
        self.wait_ready()
        deadline = self.wall_deadline if op == protocol.NOTEBOOK else self._deadline(self.limits.call_seconds)
        self._send(protocol.pack(op, **fields), deadline)
        if while_waiting is not None:
            while_waiting()
        reply_op, reply = self._receive(deadline)
        if op in (protocol.LOAD, protocol.NOTEBOOK):
            self._cpu_mark("cpu_loaded_s")
            if reply_op == protocol.OK:
                # The backend starts with the submission (a problem may ask for several CPU devices).
                self.info["device"] = str(reply.get(protocol.DEVICE, ""))[:200]
        return reply_op, reply

    def _cpu_mark(self, name: str) -> None:
        """Note the CPU seconds the sandbox has used so far, read from its cgroup on this side
        (nothing the sandbox says): a batch's breakdown splits a sandbox's time by them into
        starting (a notebook's kernel), loading (its cells) and the tests."""
        if self.cgroup is not None:
            used = self.cgroup.cpu_seconds()
            if used is not None:
                self.info[name] = round(used, 4)

    def stop(self) -> None:
        """Kill the sandbox's processes now, from any thread (a student's Cancel): whatever waits on
        its replies then finds it gone, and the session is closed as after any crash."""
        if not self._closed and not self._stopped and self.process.returncode is None:
            self._stopped = True
            # The session may be closing in its own thread meanwhile: then it is gone already.
            with contextlib.suppress(OSError):
                self.process.kill()
            self.backend.terminate(self.sandbox_id)  # a container outlives its client process

    def close(self) -> None:
        """Kill the sandbox and everything in it; idempotent."""
        if self.process.returncode is None:
            self.backend.terminate(self.sandbox_id)
            _, self.cpu_seconds = self.process.reap()
        for stream in (self.process.stdin, self.process.stdout):
            if stream is not None:
                stream.close()
        self.printed.wait_closed(timeout=1)
        if not self._closed:
            if self.cgroup is not None:
                self.cpu_seconds = max(self.cpu_seconds, self.cgroup.cpu_seconds() or 0.0)
                self.info["cpu_s"] = round(self.cpu_seconds, 4)
                self.info["peak_memory_bytes"] = self.cgroup.peak_memory_bytes()
                self._oom_killed = self.cgroup.oom_killed()
                self.cgroup.remove()
            elif not self.backend.uses_host_cgroups:
                self._oom_killed = self.backend.was_oom_killed(self.sandbox_id)
        self._closed = True

    def __enter__(self) -> SandboxSession:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    @property
    def alive(self) -> bool:
        return not self.process.exited()

    @property
    def output(self) -> str:
        """What the submission printed (stdout and stderr) before hidden tests ran, as printable text.

        Capped at ``output_bytes``.
        """
        return self.printed.visible

    @property
    def output_truncated(self) -> bool:
        return self.printed.truncated

    @property
    def hidden_output(self) -> str:
        """What the submission printed from ``start_hidden_output`` on, capped likewise."""
        return self.printed.hidden

    def start_hidden_output(self) -> None:
        """From now on, what the submission prints is hidden output, kept apart for staff.

        Called before the first hidden test sends anything, so nothing printed for a hidden
        test can be counted as visible.
        """
        self.printed.start_hidden()

    def discard_output(self) -> None:
        """From now on, what the submission prints is kept for nobody (but still counts
        towards the output limit): the platform's own requests, until hidden tests start."""
        self.printed.discard()

    # -- the channel -------------------------------------------------------------------------

    @property
    def wall_deadline(self) -> float:
        """When the sandbox's whole time runs out (``time.monotonic``)."""
        return self.started_at + self.limits.wall_seconds

    def _deadline(self, seconds: float) -> float:
        return min(time.monotonic() + seconds, self.wall_deadline)

    def output_exceeded(self) -> SandboxError:
        """Kill the sandbox for printing more than its output limit; the error to raise."""
        self.printed.exceeded = True
        return self._crashed()

    def _time_out(self) -> SandboxTimeout:
        self.killed_for_time = True
        self.close()
        return SandboxTimeout(
            "the submission ran past its time limit and was stopped. What usually causes this: a loop that "
            "never ends (a while loop whose condition never changes), a Python loop over every element where "
            "one jnp operation would do, or a call that waits (input(), time.sleep)"
        )

    def _send(self, frame: bytes, deadline: float) -> None:
        if self.sent is not None:
            self.sent.append(frame)
        assert self.process.stdin is not None
        fd = self.process.stdin.fileno()
        os.set_blocking(fd, False)
        view = memoryview(frame)
        while view:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise self._time_out()
            _, writable, _ = select.select([], [fd], [], remaining)
            if not writable:
                continue
            try:
                written = os.write(fd, view)
            except BrokenPipeError:
                raise self._crashed() from None
            view = view[written:]

    def _receive(self, deadline: float) -> tuple[str, dict[str, Any]]:
        (length,) = protocol.FRAME.unpack(self._read_exactly(protocol.FRAME.size, deadline))
        if length > protocol.MAX_PAYLOAD_BYTES:
            self.close()
            raise SandboxProtocolError(f"reply of {length} bytes exceeds the limit")
        payload = self._read_exactly(length, deadline)
        try:
            return protocol.unpack(payload)
        except protocol.ProtocolError as exc:
            self.close()
            raise SandboxProtocolError(str(exc)) from None

    def _read_exactly(self, size: int, deadline: float) -> bytes:
        assert self.process.stdout is not None
        fd = self.process.stdout.fileno()
        chunks, remaining = [], size
        while remaining:
            left = deadline - time.monotonic()
            if left <= 0:
                raise self._time_out()
            readable, _, _ = select.select([fd], [], [], left)
            if not readable:
                continue
            chunk = os.read(fd, min(remaining, 2**20))
            if not chunk:
                raise self._crashed()
            chunks.append(chunk)
            remaining -= len(chunk)
        return b"".join(chunks)

    def _crashed(self) -> SandboxError:
        """Why the sandbox stopped answering, told from what was observed outside it."""
        self.close()
        code = self.process.returncode
        if self.printed.exceeded:
            return SandboxOutputExceeded(
                f"your code printed more than {self.limits.output_limit_bytes} bytes and was stopped"
            )
        if self._oom_killed:
            return SandboxMemoryExceeded(
                f"your code used more than {self.limits.memory_bytes // 2**20} MiB of memory and was stopped"
            )
        # The kernel sends SIGXCPU at the soft CPU limit and SIGKILL at the hard one. The signal
        # alone proves nothing (a submission can send itself SIGXCPU): the CPU time the sandbox
        # really used, from the rusage of its processes, decides.
        if self.cpu_seconds >= self.limits.cpu_seconds * (1 - CPU_LIMIT_TOLERANCE):
            return SandboxTimeout(f"your code used more than {self.limits.cpu_seconds} s of CPU time and was stopped")
        if code is not None and code > 128:
            code = -(code - 128)  # bwrap reports a child killed by a signal as 128 + the signal
        how = (
            f"was killed by signal {-code} ({_signal_name(-code)})"
            if code is not None and code < 0
            else f"exited with status {code}"
        )
        return SandboxCrashed(f"the submission's process {how} before answering")


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return "unknown"
