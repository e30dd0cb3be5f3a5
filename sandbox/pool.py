"""A small pool of pre-started sandboxes, so that a submission never waits for `import jax`.

Each sandbox is still single use: the pool hands one out, the caller closes it after one
submission (nothing survives into the next), and the pool starts a fresh one to take its
place. By default the replacement starts when the previous submission is done, so that
warming up never competes with a grading for the CPU (best latency); with
``replace_early=True`` it starts as soon as one is taken (best throughput for a batch).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

from sandbox.backends import Backend, SandboxLimits
from sandbox.session import SandboxSession


class SandboxPool:
    """``size`` sandboxes of one backend, started ahead of need."""

    def __init__(
        self,
        backend: Backend,
        *,
        size: int = 1,
        limits: SandboxLimits | None = None,
        replace_early: bool = False,
        notebook: bool = False,
    ) -> None:
        """``notebook``: the sandboxes run notebooks (each prepares an IPython kernel while it starts)."""
        if size < 1:
            raise ValueError("a sandbox pool needs at least one sandbox")
        self.backend, self.size, self.limits, self.replace_early = backend, size, limits, replace_early
        self.notebook = notebook
        self._idle: list[SandboxSession] = []
        self._lock = threading.Lock()
        self.refill()

    def refill(self) -> None:
        """Start sandboxes until ``size`` are idle (dead ones are dropped first)."""
        with self._lock:
            for session in [s for s in self._idle if not s.alive]:
                self._idle.remove(session)
                session.close()
            while len(self._idle) < self.size:
                self._idle.append(SandboxSession(self.backend, self.limits, notebook=self.notebook))

    def take(self) -> SandboxSession:
        """A started sandbox for one submission; the caller must close it."""
        with self._lock:
            while self._idle:
                session = self._idle.pop(0)
                if session.alive:
                    return session
                session.close()
        return SandboxSession(self.backend, self.limits, notebook=self.notebook)

    @contextmanager
    def sandbox(self) -> Iterator[SandboxSession]:
        """Take a sandbox, close it afterwards, then start its replacement."""
        session = self.take()
        if self.replace_early:
            self.refill()
        try:
            yield session
        finally:
            session.close()
            self.refill()

    def wait_ready(self) -> None:
        """Block until every idle sandbox has imported JAX (for benchmarks and warm starts)."""
        with self._lock:
            idle = list(self._idle)
        for session in idle:
            session.wait_ready()

    def close(self) -> None:
        with self._lock:
            for session in self._idle:
                session.close()
            self._idle.clear()

    def __enter__(self) -> SandboxPool:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
