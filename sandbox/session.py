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
import threading
import time
from dataclasses import replace
from typing import Any

from sandbox import protocol
from sandbox.backends import Backend, SandboxLimits


class SandboxError(Exception):
    """The sandbox could not answer; the subclass says why."""


class SandboxTimeout(SandboxError):
    """A deadline ran out and the sandbox was killed."""


class SandboxCrashed(SandboxError):
    """The sandbox exited or closed its channel before answering."""


class SandboxProtocolError(SandboxError):
    """The sandbox answered with something that breaks the protocol."""


class SandboxSession:
    """A running sandbox, single use: one submission, then killed."""

    def __init__(self, backend: Backend, limits: SandboxLimits | None = None) -> None:
        self.backend = backend
        self.limits = limits or SandboxLimits()
        self.started_at = time.monotonic()
        self.info: dict[str, Any] = {"backend": backend.name, "isolated": backend.isolated}
        self._stderr = bytearray()
        self._stderr_total = 0
        self.killed_for_time = False
        self.process = subprocess.Popen(
            backend.command(self.limits),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=backend.environment(),
            start_new_session=True,
            close_fds=True,
        )
        self._stderr_thread = threading.Thread(target=self._drain_stderr, daemon=True)
        self._stderr_thread.start()
        self._ready: dict[str, Any] | None = None

    # -- lifecycle -------------------------------------------------------------------------

    def use_deadlines(self, limits: SandboxLimits) -> None:
        """Adopt the wall and call deadlines of ``limits`` for a sandbox already started.

        Sandboxes start before anyone knows which problem they will serve (that is how their
        start-up is hidden); the deadlines are enforced here, so they can still be set then.
        """
        self.limits = replace(self.limits, wall_seconds=limits.wall_seconds, call_seconds=limits.call_seconds)

    def wait_ready(self) -> dict[str, Any]:
        """Block until the runtime has imported JAX and announced itself."""
        if self._ready is None:
            op, fields = self._receive(self._deadline(self.limits.wall_seconds))
            if op != "ready":
                raise SandboxProtocolError(f"expected ready, got {op!r}")
            self._ready = fields
            self.info.update({key: str(fields.get(key, ""))[:200] for key in ("device", "jax_version")})
        return self._ready

    def request(self, op: str, **fields: Any) -> tuple[str, dict[str, Any]]:
        """Send one request and return the decoded reply, within the call deadline."""
        self.wait_ready()
        deadline = self._deadline(self.limits.call_seconds)
        self._send(protocol.pack(op, **fields), deadline)
        return self._receive(deadline)

    def close(self) -> None:
        """Kill the sandbox and everything in it; idempotent."""
        if self.process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait()
        for stream in (self.process.stdin, self.process.stdout):
            if stream is not None:
                stream.close()
        self._stderr_thread.join(timeout=1)

    def __enter__(self) -> SandboxSession:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    @property
    def alive(self) -> bool:
        return self.process.poll() is None

    @property
    def output(self) -> str:
        """What the submission printed (stdout and stderr), capped at ``output_bytes``."""
        return self._stderr.decode("utf-8", errors="replace")

    @property
    def output_truncated(self) -> bool:
        return self._stderr_total > len(self._stderr)

    # -- the channel -------------------------------------------------------------------------

    def _deadline(self, seconds: float) -> float:
        wall_deadline = self.started_at + self.limits.wall_seconds
        return min(time.monotonic() + seconds, wall_deadline)

    def _time_out(self) -> SandboxTimeout:
        self.killed_for_time = True
        self.close()
        return SandboxTimeout("the submission ran past its time limit and was stopped")

    def _send(self, frame: bytes, deadline: float) -> None:
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

    def _crashed(self) -> SandboxCrashed:
        self.close()
        code = self.process.returncode
        how = f"was killed by signal {-code}" if code is not None and code < 0 else f"exited with status {code}"
        return SandboxCrashed(f"the submission's process {how} before answering")

    def _drain_stderr(self) -> None:
        assert self.process.stderr is not None
        fd = self.process.stderr.fileno()
        # Keep reading past the cap so that a chatty submission never blocks on a full pipe.
        for chunk in iter(lambda: os.read(fd, 65536), b""):
            self._stderr_total += len(chunk)
            room = self.limits.output_bytes - len(self._stderr)
            if room > 0:
                self._stderr += chunk[:room]
        self.process.stderr.close()
