"""A small pool of pre-started sandboxes, so that a submission never waits for `import jax`.

Each sandbox is still single use: the pool hands one out, the caller closes it after one
submission (nothing survives into the next), and the pool starts a fresh one to take its
place. By default the replacement starts when the previous submission is done, so that
warming up never competes with a grading for the CPU (best latency); with
``replace_early=True`` it starts as soon as one is taken (best throughput for a batch).

Where the backend can (bwrap), sandboxes are forked by fork servers (``sandbox.host.forkserver``)
rather than started afresh: JAX is imported once per fork server, not once per submission.
A fork server serves one submission at a time and forks the next child as soon as the last
one is done (a few hundredths of a second), so a pool keeps one per sandbox: a second one
per sandbox cost a batch more to start (1.3 CPU-s each) than it saved.

This is one pool, of one backend; which pools a process keeps (one per backend, device and
kind of submission) is the grader's registry, ``grader.pools``.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

from sandbox.host import cgroups
from sandbox.host.backends import Backend, SandboxLimits
from sandbox.host.forkserver import ForkServer, ForkServerError, ForkServerUnsupported
from sandbox.host.session import SandboxSession


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
        fork_servers: bool | None = None,
    ) -> None:
        """``notebook``: the sandboxes run notebooks (each prepares an IPython kernel while it
        starts). ``fork_servers``: fork sandboxes from fork servers (default: where the backend can)."""
        if size < 1:
            raise ValueError("a sandbox pool needs at least one sandbox")
        self.backend, self.size, self.limits, self.replace_early = backend, size, limits, replace_early
        self.notebook = notebook
        self.fork_servers = backend.supports_fork_server if fork_servers is None else fork_servers
        self._servers: list[ForkServer] = []
        self._idle: list[SandboxSession] = []
        self._lock = threading.Lock()
        if backend.uses_host_cgroups:
            cgroups.remove_abandoned()  # a pool starts where a killed one may have left its groups
        self.refill()

    def refill(self) -> None:
        """Start sandboxes until ``size`` are idle (dead ones are dropped first)."""
        with self._lock:
            for session in [s for s in self._idle if not s.alive]:
                self._idle.remove(session)
                session.close()
            while len(self._idle) < self.size:
                started = self._start(wait=False)
                if started is None:  # its fork server is still importing JAX: the next refill forks
                    break
                self._idle.append(started)

    def take(self) -> SandboxSession:
        """A started sandbox for one submission; the caller must close it."""
        with self._lock:
            while self._idle:
                session = self._idle.pop(0)
                if session.alive:
                    return session
                session.close()
            started = self._start(wait=True)
            assert started is not None
            return started

    def _start(self, *, wait: bool) -> SandboxSession | None:
        """A new sandbox: forked where a fork server is free (``wait``: even one still
        starting), else started afresh; None when it would have to wait and may not."""
        if self.fork_servers:
            try:
                server = self._free_server(wait=wait)
                if server is not None:
                    return SandboxSession(self.backend, self.limits, notebook=self.notebook, fork_server=server)
            except ForkServerUnsupported:
                self.fork_servers = False  # never on this host: sandboxes are started afresh from now on
            except ForkServerError:  # discarded; it is replaced at the next start
                pass
            if not wait:
                return None
        return SandboxSession(self.backend, self.limits, notebook=self.notebook)

    def _free_server(self, *, wait: bool) -> ForkServer | None:
        """A fork server with no child: a ready one, else (``wait``) one still starting;
        a new one is started if there is room. None if none is free (or ready, not waiting)."""
        for dead in [s for s in self._servers if not s.alive]:
            self._servers.remove(dead)
            dead.close()
        free = [s for s in self._servers if not s.busy]
        server = next((s for s in free if s.ready is not None or s.poll_ready()), None)
        if server is None and wait and free:
            server = free[0]
        if server is None and len(self._servers) < self.size:
            self._servers.append(ForkServer(self.backend, self.limits, notebook=self.notebook))
            if wait:
                server = self._servers[-1]
        return server

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
            servers = [server for server in self._servers if not server.busy]
        for server in servers:
            try:
                server.wait_ready()
            except ForkServerUnsupported:
                self.fork_servers = False
            except ForkServerError:  # a broken one is replaced by the refill
                pass
        self.refill()
        with self._lock:
            idle = list(self._idle)
        for session in idle:
            session.wait_ready()

    def close(self) -> None:
        with self._lock:
            for session in self._idle:
                session.close()
            self._idle.clear()
            for server in self._servers:
                server.close()
            self._servers.clear()

    def __enter__(self) -> SandboxPool:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
