"""The harness's view of a submission running in a sandbox.

Tests reach the student's code only through ``SubmissionProxy``: ``submission.fn(x)`` sends
the arguments into the sandbox, waits for the reply and returns plain values
(``grader.channel_values``). Objects that cannot cross come back as ``RemoteHandle``
(``grader.remote_handle``); exceptions raised by the student's code are re-raised here as the
same builtin type (``grader.submission_exceptions``), and each call leaves a ``CallRecord``
with what JAX did during it, tied to the inputs it was given (``grader.call_records``).

Every reply, the one to ``load`` included, is decoded by ``SubmissionProxy._request``; a
reply that says the submission tampered with the runtime ends the submission
(``TamperingDetected``).
"""

from __future__ import annotations

import contextlib
import functools
import time
from collections.abc import Callable
from typing import Any

from grader.call_records import CallRecord, JaxEvents, describe_signature, plain_numbers, signature_of
from grader.channel_values import from_wire, to_wire
from grader.jaxpr_summary import JaxprSummary
from grader.remote_handle import RemoteHandle
from grader.submission_exceptions import (
    RaisedBySubmission,
    SubmissionUnavailable,
    TamperingDetected,
    exception_from_reply,
    submission_exception_class,
)
from sandbox import protocol
from sandbox.host.notebook import NotebookRun, cells_to_run, take_run
from sandbox.host.session import SandboxError, SandboxSession

# Names of the modules the proxy was split into, still importable from here: the hidden tests
# of problem notebooks import JaxprSummary and describe_signature from grader.proxy, and the
# harness the exceptions a call can end in.
__all__ = [
    "JaxprSummary",
    "RaisedBySubmission",
    "SubmissionProxy",
    "SubmissionUnavailable",
    "TamperingDetected",
    "describe_signature",
]

Transform = str | tuple[str, dict[str, Any]]

# (entry point, transformations, args, kwargs) -> what waits for the work it started.
Anticipate = Callable[[str, tuple[Any, ...], tuple[Any, ...], dict[str, Any]], Callable[[], None]]


class SubmissionProxy:
    """The student's module as tests see it: ``submission.name(*args)`` runs in the sandbox."""

    def __init__(self, session: SandboxSession) -> None:
        self._session = session
        self._names: frozenset[str] = frozenset()
        self._failure: SandboxError | None = None
        self.load_events = JaxEvents()
        self.calls: list[CallRecord] = []
        self.tampering: list[str] = []
        self.devices = 0  # JAX devices the sandbox has (as it says)
        self.notebook_run: NotebookRun | None = None  # how the cells ran, for a notebook
        self._last_reply: dict[str, Any] = {}
        # The last call of an entry point as the harness made it (trusted values: the harness
        # made them), and how many such calls there were: feedback shows the failing input.
        self.last_arguments: tuple[str, tuple[Any, ...], dict[str, Any]] | None = None
        self.entry_point_calls = 0
        # The first call of an entry point by a visible test (its input is shown in the
        # insight panel: a hidden test's would tell its shapes), and where hidden tests began.
        self.first_visible_call: tuple[str, tuple[Any, ...], dict[str, Any]] | None = None
        self.hidden_from: int | None = None
        # Seconds this process waited on the sandbox's replies, the channel included: less
        # the sandbox's own seconds for its requests, what the channel cost.
        self.round_trip_seconds = 0.0
        # Work of the harness's own to do while the sandbox computes a call: given what is
        # called (an entry point's name and the transformations applied to it, innermost
        # first) and its arguments, it starts that work and returns what waits for its end, or
        # None (the harness sets it: the reference's answer to the same call).
        self.anticipate: Anticipate | None = None
        self._transformed_from: dict[int, tuple[str, tuple[Any, ...]]] = {}

    @classmethod
    def load(cls, session: SandboxSession, source: str, filename: str, *, cpu_devices: int = 1) -> SubmissionProxy:
        """Run the submission's module in the sandbox, whose JAX gets ``cpu_devices`` host
        CPU devices; raises what loading it raised."""
        proxy = cls(session)
        names = proxy._request(protocol.LOAD, "load", source=source, filename=filename, cpu_devices=cpu_devices)
        proxy._loaded(names)
        return proxy

    @classmethod
    def load_notebook(cls, session: SandboxSession, notebook: Any, *, cpu_devices: int = 1) -> SubmissionProxy:
        """Run the notebook's cells on the kernel of ``session`` (a sandbox started for a
        notebook) as Jupyter would; its functions are then what the cells defined.

        ``notebook`` (an ``nbformat`` node) gets the cells' outputs; ``notebook_run`` says how
        it went. Raises ``CellFailed`` for a cell that raised and ``NotebookBroken`` for a run
        the kernel broke, like ``load`` otherwise.
        """
        proxy = cls(session)
        ran = cells_to_run(notebook)
        sources = [source if isinstance(source := notebook.cells[index].get("source"), str) else "" for index in ran]
        started = time.monotonic()
        limit, devices = session.limits.output_limit_bytes, cpu_devices
        names = proxy._request(protocol.NOTEBOOK, "notebook", cells=sources, output_limit=limit, cpu_devices=devices)
        try:
            proxy.notebook_run = take_run(session, notebook, ran, proxy._last_reply, time.monotonic() - started)
        except SandboxError as exc:  # it printed too much: the sandbox is killed
            raise SubmissionUnavailable(exc) from None
        proxy._loaded(names)
        return proxy

    def _loaded(self, names: Any) -> None:
        """Take the names a load reported (strings only) and its events as the load's own."""
        self._names = (
            frozenset(name for name in names if isinstance(name, str)) if isinstance(names, list) else frozenset()
        )
        self.load_events = self.calls.pop().events

    def __repr__(self) -> str:
        return "submission"

    def start_hidden_output(self) -> None:
        """What the submission prints from now on is kept from the student (hidden tests run)."""
        self.hidden_from = len(self.calls)
        self._session.start_hidden_output()

    @property
    def last_call(self) -> CallRecord:
        if not self.calls:
            raise LookupError("the submission has not been called yet")
        return self.calls[-1]

    @property
    def total_events(self) -> JaxEvents:
        return sum((call.events for call in self.calls), self.load_events)

    def __getattr__(self, name: str) -> Callable[..., Any]:
        if name.startswith("_"):
            raise AttributeError(name)
        if name not in self._names:
            raise AttributeError(f"your code defines no function named {name!r}")
        return functools.partial(self._call_entry_point, name)

    def transformed(self, function: str | RemoteHandle, *transforms: Transform) -> RemoteHandle:
        """``function`` (a name the submission defines, or a handle) with JAX transformations
        applied in the sandbox, innermost first: ``transformed("f", "grad", "vmap")`` is
        ``jax.vmap(jax.grad(f))``. A transformation is a name (``jit``, ``vmap``, ``grad``,
        ``value_and_grad``, ``jacfwd``, ``make_jaxpr``, ``eval_shape``) or ``(name,
        options)``, e.g. ``("vmap", {"in_axes": (0, None)})``. With none, the function itself.

        The sandbox applies JAX's own functions as they were before the submission loaded, so
        a submission that replaces ``jax.grad`` cannot change what a test applies.
        """
        target = function._ref.id if isinstance(function, RemoteHandle) else function
        specs = [[spec, {}] if isinstance(spec, str) else [spec[0], dict(spec[1])] for spec in transforms]
        label = function if isinstance(function, str) else f"<{function.short_type}>"
        for name, _ in specs:
            label = f"jax.{name}({label})"
        handle = self._request(protocol.TRANSFORM, label, target=target, transforms=specs)
        if not isinstance(handle, RemoteHandle):
            raise submission_exception_class(RuntimeError)(f"{function} is not a function")
        if isinstance(function, str):
            self._transformed_from[handle._ref.id] = (function, tuple(transforms))
        handle.label = label
        return handle

    def jaxpr(
        self, function: str | RemoteHandle, *args: Any, static_argnums: tuple[int, ...] = (), **kwargs: Any
    ) -> JaxprSummary:
        """``jax.make_jaxpr(function, static_argnums=...)(*args)`` made in the sandbox, as a
        ``JaxprSummary``."""
        make_jaxpr = ("make_jaxpr", {"static_argnums": tuple(static_argnums)})
        return JaxprSummary.from_wire(self.transformed(function, make_jaxpr)(*args, **kwargs))

    def deserialize_exported(self, data: bytes) -> RemoteHandle:
        """``jax.export.deserialize(data)`` run in the sandbox: untrusted bytes never become
        objects in the harness. The result is a handle (``kind == "exported"`` when it is a
        real ``Exported``); call it with ``.call(x)``."""
        if not isinstance(data, (bytes, bytearray)):
            raise TypeError(f"serialized exports are bytes, not {type(data).__name__}")
        handle = self._request(protocol.DESERIALIZE, "jax.export.deserialize", data=bytes(data))
        if not isinstance(handle, RemoteHandle):
            raise submission_exception_class(RuntimeError)("deserialize gave no Exported")
        return handle

    def insight(self, name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        """What JAX makes of entry point ``name`` for these arguments, made in the sandbox:
        plain data that ``grader.insight`` checks before anyone reads it. What the code prints
        meanwhile is no test's output: nobody sees it."""
        self._session.discard_output()
        calls = len(self.calls)
        try:
            return self._request(protocol.INSIGHT, f"insight({name})", target=name, args=args, kwargs=kwargs)
        finally:
            del self.calls[calls:]  # the platform's request, no test's call

    def _call_entry_point(self, name: str, *args: Any, **kwargs: Any) -> Any:
        self.last_arguments = (name, args, dict(kwargs))
        self.entry_point_calls += 1
        if self.first_visible_call is None and self.hidden_from is None:
            self.first_visible_call = self.last_arguments
        return self._request(protocol.CALL, name, target=name, method=None, args=args, kwargs=kwargs)

    def _request(self, op: str, label: str, /, **fields: Any) -> Any:
        if self.tampering:
            raise TamperingDetected(self.tampering)
        if self._failure is not None:
            raise SubmissionUnavailable(self._failure)
        inputs = signature_of((fields.get("args"), fields.get("kwargs")))
        scalars = plain_numbers(fields.get("args"), fields.get("kwargs"))
        original = dict(fields)
        for key in ("args", "kwargs"):
            if key in fields:
                fields[key] = to_wire(fields[key])
        waits: list[Callable[[], None]] = []
        start = self._starting(self._anticipated(op, original), waits)
        started = time.perf_counter()
        try:
            reply_op, reply = self._session.request(op, while_waiting=start, **fields)
        except SandboxError as exc:
            self._failure = exc
            raise SubmissionUnavailable(exc) from None
        finally:
            self.round_trip_seconds += time.perf_counter() - started
            for wait in waits:  # nothing of the harness's runs on beside the test
                wait()
        integrity = reply.get(protocol.INTEGRITY)
        if not isinstance(integrity, list) or not all(isinstance(problem, str) for problem in integrity):
            integrity = ["the sandbox's reply had no integrity report"]
        if integrity:
            self.tampering = [problem[:300] for problem in integrity[:8]]
            raise TamperingDetected(self.tampering)
        self._last_reply = reply
        self.calls.append(CallRecord(label, JaxEvents.from_wire(reply.get(protocol.EVENTS)), inputs, scalars))
        if reply_op == protocol.ERROR:
            raise exception_from_reply(reply)
        if op in (protocol.LOAD, protocol.NOTEBOOK):
            devices = reply.get(protocol.DEVICES)
            self.devices = devices if type(devices) is int else 0
        answer = protocol.NAMES if op in (protocol.LOAD, protocol.NOTEBOOK) else protocol.VALUE
        if reply_op != protocol.OK or answer not in reply:
            raise submission_exception_class(RuntimeError)(f"malformed reply {reply_op!r} from the sandbox")
        return from_wire(reply[answer], self._request)

    @staticmethod
    def _starting(
        anticipated: Callable[[], Callable[[], None]] | None, waits: list[Callable[[], None]]
    ) -> Callable[[], None] | None:
        """What the session calls once the request is sent: starts the anticipated work and keeps
        what waits for it. It never raises: the reply is read whatever the harness's extra work does."""
        if anticipated is None:
            return None

        def start() -> None:
            with contextlib.suppress(Exception):
                waits.append(anticipated())

        return start

    def _anticipated(self, op: str, fields: dict[str, Any]) -> Callable[[], Callable[[], None]] | None:
        """What starts the harness's work for this request while the sandbox computes it: for a
        call of an entry point, or of one transformed by ``transformed`` from an entry point."""
        if self.anticipate is None or op != protocol.CALL or fields.get("method") is not None:
            return None
        target = fields.get("target")
        if isinstance(target, str):
            name, transforms = target, ()
        elif isinstance(target, int) and target in self._transformed_from:
            name, transforms = self._transformed_from[target]
        else:
            return None
        anticipate = self.anticipate
        args, kwargs = tuple(fields.get("args") or ()), dict(fields.get("kwargs") or {})
        return lambda: anticipate(name, transforms, args, kwargs)
