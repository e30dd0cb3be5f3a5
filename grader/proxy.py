"""The harness's view of a submission running in a sandbox.

Tests reach the student's code only through ``SubmissionProxy``: ``submission.fn(x)`` sends
the arguments into the sandbox, waits for the reply and returns plain values. Objects that
cannot cross come back as ``RemoteHandle``; exceptions raised by the student's code are
re-raised here as the same builtin type (marked with ``RaisedBySubmission``), and each call
leaves a ``CallRecord`` with what JAX did during it, tied to the inputs it was given.

Every reply, the one to ``load`` included, is decoded by ``SubmissionProxy._request``; a
reply that says the submission tampered with the runtime ends the submission
(``TamperingDetected``).
"""

from __future__ import annotations

import builtins
import contextlib
import functools
import time
from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from sandbox import protocol
from sandbox.host.notebook import NotebookRun, cells_to_run, take_run
from sandbox.host.session import SandboxError, SandboxSession

# Durations the sandbox reports are believed up to this many seconds (far above any limit),
# so that no sum of them can overflow to infinity.
MAX_REPORTED_SECONDS = 1e6
MAX_EXCEPTION_TEXT = 8000


class RaisedBySubmission(Exception):
    """Mixed into every exception that the student's code raised inside the sandbox."""

    remote_type: str = ""
    remote_traceback: str = ""


class SubmissionExited(RaisedBySubmission, RuntimeError):
    """The student's code called ``sys.exit()`` or raised another ``BaseException``."""


class SubmissionUnavailable(Exception):
    """The sandbox is gone (time limit, crash, broken protocol): no call can be answered."""

    def __init__(self, cause: SandboxError) -> None:
        super().__init__(str(cause))
        self.cause = cause


class TamperingDetected(Exception):
    """The submission changed the runtime's hooks, listeners, methods or record of JAX events.

    Nothing the sandbox says after that can be believed, so no further call is made.
    """

    def __init__(self, problems: list[str]) -> None:
        super().__init__("your code tampered with the grader's instrumentation: " + "; ".join(problems))
        self.problems = problems


_EXCEPTION_CLASSES: dict[type[Exception], type[Exception]] = {}


def _submission_exception_class(builtin: type[Exception]) -> type[Exception]:
    """A subclass of ``builtin`` marked as raised by the submission, one per builtin."""
    if builtin not in _EXCEPTION_CLASSES:
        _EXCEPTION_CLASSES[builtin] = type(
            builtin.__name__, (RaisedBySubmission, builtin), {"__module__": "submission"}
        )
    return _EXCEPTION_CLASSES[builtin]


def _rebuilt(base: type[Exception], message: str) -> Exception:
    """An instance of the nearest class of ``base``'s ancestry that can hold just a message.

    Some builtins need more than a message (``UnicodeDecodeError`` five arguments,
    ``ExceptionGroup`` a list of exceptions); they become their nearest base that does not
    (``UnicodeError``, ``Exception``), so ``pytest.raises`` on a base still matches.
    """
    for candidate in base.__mro__:
        if not (isinstance(candidate, type) and issubclass(candidate, Exception)):
            continue
        if issubclass(candidate, BaseExceptionGroup):
            continue
        try:
            exc = _submission_exception_class(candidate)(message)
            str(exc)
        except Exception:
            continue
        return exc
    return _submission_exception_class(RuntimeError)(message)


def submission_exception(type_name: str, builtin_name: str, message: str, remote_traceback: str) -> Exception:
    """Rebuild an exception from the sandbox as an instance of its builtin class (or a base)."""
    base = getattr(builtins, builtin_name, None)
    exc: Exception
    if type_name in ("SystemExit", "KeyboardInterrupt", "GeneratorExit"):
        exc = SubmissionExited(f"your code raised {type_name}({message}) instead of returning")
    elif isinstance(base, type) and issubclass(base, Exception) and not issubclass(base, RaisedBySubmission):
        shown = message if type_name == builtin_name else f"{type_name}: {message}"
        exc = _rebuilt(base, shown)
    else:
        exc = _submission_exception_class(RuntimeError)(f"{type_name}: {message}")
    assert isinstance(exc, RaisedBySubmission)
    exc.remote_type = type_name
    exc.remote_traceback = remote_traceback
    return exc


Signature = tuple[tuple[tuple[int | str, ...], str], ...]


def signature_of(value: Any) -> Signature:
    """Shapes and dtypes of the arrays in a call's arguments, as the sandbox records them."""
    leaves = jax.tree_util.tree_leaves(value, is_leaf=lambda leaf: isinstance(leaf, (RemoteHandle, PortableFunction)))
    return tuple(
        (tuple(int(n) for n in leaf.shape), str(leaf.dtype))
        for leaf in leaves
        if isinstance(leaf, (jax.Array, np.ndarray, np.generic))
    )


def describe_signature(signature: Signature) -> str:
    return ", ".join(f"{dtype}{list(shape)}" for shape, dtype in signature) or "no arrays"


@dataclass(frozen=True)
class StageRecord:
    """One step through JAX's ahead-of-time stages, recorded in the sandbox.

    ``stage`` is ``lower`` (a ``Lowered`` made by ``.lower(...)``), ``compile`` (a
    ``Compiled`` made from the lowering numbered ``source``) or ``call`` (the executable
    numbered ``source`` called). ``signature`` is what the lowering or executable was for, or
    what the call passed; ``from_inputs`` says, per array passed to a call, whether it was the
    very array the harness sent in this request; ``returned``, whether the call's result is
    what the request returned. ``source`` is -1 when the object was not made by a recorded step.
    """

    stage: str
    id: int
    source: int
    signature: Signature
    from_inputs: tuple[bool, ...] = ()
    returned: bool = False

    @classmethod
    def from_wire(cls, raw: Any) -> StageRecord | None:
        """The record, or None for anything malformed (a forged record proves nothing)."""
        if not isinstance(raw, dict) or raw.get("stage") not in ("lower", "compile", "call"):
            return None
        number, source, signature, inputs = raw.get("id"), raw.get("source"), raw.get("signature"), raw.get("inputs")
        if type(number) is not int or type(source) is not int or type(raw.get("returned")) is not bool:
            return None
        if not isinstance(signature, list) or len(signature) > 64 or not isinstance(inputs, list):
            return None
        parsed = []
        for entry in signature:
            if not (isinstance(entry, list) and len(entry) == 2 and isinstance(entry[0], list)):
                return None
            shape, dtype = entry
            if len(shape) > 32 or not all(_is_dimension(n) for n in shape):
                return None
            if not isinstance(dtype, str) or len(dtype) > 32:
                return None
            parsed.append((tuple(shape), dtype))
        if len(inputs) > 64 or not all(type(flag) is bool for flag in inputs):
            return None
        return cls(str(raw["stage"]), number, source, tuple(parsed), tuple(inputs), raw["returned"])


@dataclass(frozen=True)
class JaxEvents:
    """What JAX did inside the sandbox during one request.

    The first four count API calls made by the submission (robust to JAX's in-process
    caches); the ``*_events`` count ``jax.monitoring`` events, which fire only when JAX
    really traced, lowered or compiled (a cached executable fires none). The seconds are
    spent in XLA compiles, in tracing and lowering (staging), and in the whole request.
    """

    jit: int = 0
    lower: int = 0
    compile: int = 0
    compiled_call: int = 0
    trace_events: int = 0
    lowering_events: int = 0
    backend_compile_events: int = 0
    compile_seconds: float = 0.0
    staging_seconds: float = 0.0
    seconds: float = 0.0
    stages: tuple[StageRecord, ...] = ()

    @classmethod
    def from_wire(cls, raw: Any) -> JaxEvents:
        values: dict[str, Any] = {}
        if isinstance(raw, dict):
            for spec in fields(cls):
                value = raw.get(spec.name, 0)
                if spec.type == "int" and type(value) is int and 0 <= value < 2**31:
                    values[spec.name] = value
                elif spec.type == "float" and type(value) in (int, float) and 0 <= value <= MAX_REPORTED_SECONDS:
                    values[spec.name] = float(value)
            records = raw.get("stages")
            if isinstance(records, list):
                parsed = (StageRecord.from_wire(record) for record in records[:256])
                values["stages"] = tuple(record for record in parsed if record is not None)
        return cls(**values)

    def __add__(self, other: JaxEvents) -> JaxEvents:
        return JaxEvents(**{spec.name: getattr(self, spec.name) + getattr(other, spec.name) for spec in fields(self)})


@dataclass(frozen=True)
class CallRecord:
    """One request to the sandbox: what was called, on which arrays (and plain numbers), and
    what JAX did meanwhile."""

    name: str
    events: JaxEvents
    inputs: Signature = ()
    # The Python numbers among the arguments: (where it was passed, its value), where is a
    # position ("0", "1", ...) or a keyword.
    scalars: tuple[tuple[str, str], ...] = ()


class PortableFunction:
    """A function a test can pass to the submission: it crosses the channel as source.

    ``source`` must define ``name`` using only ``jax``, ``jnp`` and ``np``; the same source
    is compiled here for the reference and in the sandbox for the submission.
    """

    def __init__(self, source: str, name: str = "f") -> None:
        self.source, self.name = source, name
        namespace: dict[str, Any] = {"jax": jax, "jnp": jnp, "np": np}
        exec(compile(source, f"<function {name}>", "exec"), namespace)
        self.function: Callable[..., Any] = namespace[name]
        # Named like the function it wraps (JAX names jitted modules after it: jit_f), and
        # with its signature (inspect follows __wrapped__).
        functools.update_wrapper(self, self.function)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.function(*args, **kwargs)

    def __repr__(self) -> str:
        return f"PortableFunction({self.source!r})"


@dataclass(frozen=True)
class NamedShardingSummary:
    """A ``NamedSharding`` as data: the mesh's (axis, size) pairs, and for each dimension of the
    array the mesh axes it is split over (none: that dimension is whole on every device)."""

    mesh: tuple[tuple[str, int], ...]
    spec: tuple[tuple[str, ...], ...]


@dataclass(frozen=True)
class FlowEquation:
    """One top-level equation: its primitive, the variables it takes and gives (numbers; -1 is a
    literal), the ``NamedSharding``s among its parameters, and every primitive nested in it."""

    primitive: str
    inputs: tuple[int, ...]
    outputs: tuple[int, ...]
    shardings: tuple[NamedShardingSummary, ...]
    inner: tuple[str, ...]


@dataclass(frozen=True)
class JaxprFlow:
    """The top level of a jaxpr as data: its input and output variables and its equations."""

    inputs: tuple[int, ...]
    outputs: tuple[int, ...]
    equations: tuple[FlowEquation, ...]

    @classmethod
    def from_wire(cls, raw: Any) -> JaxprFlow:
        """Checked field by field: it comes out of the sandbox, so it is hostile."""
        record = _flow_record(raw, ("inputs", "outputs", "equations"))
        equations = []
        for item in _flow_items(record["equations"], 1_000):
            fields = _flow_record(item, ("primitive", "inputs", "outputs", "shardings", "inner"))
            shardings = []
            for entry in _flow_items(fields["shardings"]):
                sharding = _flow_record(entry, ("mesh", "spec"))
                axes = [_flow_pair(axis) for axis in _flow_items(sharding["mesh"])]
                mesh = tuple((_flow_text(name), _flow_number(size)) for name, size in axes)
                split = _flow_items(sharding["spec"])
                spec = tuple(tuple(_flow_text(name) for name in _flow_items(names)) for names in split)
                shardings.append(NamedShardingSummary(mesh, spec))
            equations.append(
                FlowEquation(
                    _flow_text(fields["primitive"]),
                    tuple(_flow_number(n) for n in _flow_items(fields["inputs"])),
                    tuple(_flow_number(n) for n in _flow_items(fields["outputs"])),
                    tuple(shardings),
                    tuple(_flow_text(name) for name in _flow_items(fields["inner"], 1_000)),
                )
            )
        inputs = tuple(_flow_number(n) for n in _flow_items(record["inputs"]))
        return cls(inputs, tuple(_flow_number(n) for n in _flow_items(record["outputs"])), tuple(equations))


def _malformed() -> Exception:
    return _submission_exception_class(RuntimeError)("make_jaxpr gave a malformed jaxpr summary")


def _flow_record(raw: Any, keys: tuple[str, ...]) -> dict[str, Any]:
    if not isinstance(raw, dict) or set(raw) != set(keys):
        raise _malformed()
    return raw


def _flow_items(raw: Any, most: int = 64) -> list[Any]:
    if not isinstance(raw, list) or len(raw) > most:
        raise _malformed()
    return raw


def _flow_pair(raw: Any) -> list[Any]:
    if not isinstance(raw, list) or len(raw) != 2:
        raise _malformed()
    return raw


def _flow_text(raw: Any) -> str:
    if not isinstance(raw, str) or len(raw) > 64:
        raise _malformed()
    return raw


def _flow_number(raw: Any) -> int:
    """A variable's number (-1: a literal) or a mesh axis's size."""
    if type(raw) is not int or not -1 <= raw < 2**31:
        raise _malformed()
    return raw


@dataclass(frozen=True)
class JaxprSummary:
    """A jaxpr made in the sandbox (``jax.make_jaxpr`` of a submission's function), as data.

    ``primitives`` names the top-level equations in order, ``all_primitives`` every equation
    at any depth (inside ``scan``, ``cond``, ``pjit``, custom rules ...), ``equations`` counts
    those, ``text`` is the printed jaxpr, and ``flow`` its top level read from JAX's objects
    (``JaxprFlow``: what each equation takes and gives, and its shardings).
    """

    primitives: tuple[str, ...]
    all_primitives: tuple[str, ...]
    equations: int
    text: str
    flow: JaxprFlow

    @classmethod
    def from_wire(cls, raw: Any) -> JaxprSummary:
        if not isinstance(raw, dict):
            raise _submission_exception_class(RuntimeError)("make_jaxpr gave no jaxpr summary")
        primitives, every, count, text = (raw.get(key) for key in ("primitives", "all_primitives", "equations", "text"))
        if not (isinstance(primitives, list) and isinstance(every, list) and type(count) is int):
            raise _malformed()
        names = [name for name in primitives if isinstance(name, str)]
        every_name = [name for name in every if isinstance(name, str)]
        flow = JaxprFlow.from_wire(raw.get("flow"))
        text = text if isinstance(text, str) else ""
        return cls(tuple(names), tuple(every_name), max(count, len(every_name)), text, flow)


Transform = str | tuple[str, dict[str, Any]]


class WideJaxArray:
    """A JAX array the submission returned with a 64-bit dtype this harness cannot hold."""

    def __init__(self, array: np.ndarray) -> None:
        self.array = array
        self.shape, self.dtype = array.shape, array.dtype

    def __repr__(self) -> str:
        return f"jax.Array({self.array!r}) with 64-bit dtype {self.dtype}"


class RemoteHandle:
    """An object that stays in the sandbox (a ``Compiled``, a ``Lowered``, a function, ...)."""

    def __init__(self, proxy: SubmissionProxy, ref: protocol.HandleRef) -> None:
        self._proxy, self._ref = proxy, ref
        # How its calls are named in the insight: what made it (``jit(f)``), when the harness knows.
        self.label = ""

    @property
    def type_name(self) -> str:
        """The object's type as ``module.QualName``, for messages only: a submission names its own classes."""
        return self._ref.type_name

    @property
    def kind(self) -> str:
        """What the object is, told in the sandbox by identity with the real JAX classes.

        One of ``compiled``, ``lowered``, ``traced``, ``exported``, ``jitted`` (what
        ``jax.jit`` returns), ``function`` and ``object``. A class that merely calls itself
        ``Compiled`` is an ``object``.
        """
        return self._ref.kind

    @property
    def is_compiled(self) -> bool:
        """A real ``jax.stages.Compiled``."""
        return self.kind == "compiled"

    @property
    def is_lowered(self) -> bool:
        """A real ``jax.stages.Lowered``."""
        return self.kind == "lowered"

    @property
    def is_exported(self) -> bool:
        """A real ``jax.export.Exported``."""
        return self.kind == "exported"

    @property
    def is_callable(self) -> bool:
        return self._ref.callable

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._proxy._request(
            protocol.CALL,
            self.label or f"<{self.short_type}>",
            target=self._ref.id,
            method=None,
            args=args,
            kwargs=kwargs,
        )

    def call_method(self, name: str, *args: Any, **kwargs: Any) -> Any:
        return self._proxy._request(
            protocol.CALL, f"<{self.short_type}>.{name}", target=self._ref.id, method=name, args=args, kwargs=kwargs
        )

    def attribute(self, name: str) -> Any:
        return self._proxy._request(protocol.GETATTR, f"<{self.short_type}>.{name}", target=self._ref.id, name=name)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        if name in protocol.HANDLE_METHODS:
            return functools.partial(self.call_method, name)
        return self.attribute(name)

    @property
    def short_type(self) -> str:
        return self.type_name.rsplit(".", 1)[-1]

    def __repr__(self) -> str:
        return f"<{self.type_name} object in the sandbox>"


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
            raise _submission_exception_class(RuntimeError)(f"{function} is not a function")
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
            raise _submission_exception_class(RuntimeError)("deserialize gave no Exported")
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

    def _request(self, op: str, label: str, **fields: Any) -> Any:
        if self.tampering:
            raise TamperingDetected(self.tampering)
        if self._failure is not None:
            raise SubmissionUnavailable(self._failure)
        inputs = signature_of((fields.get("args"), fields.get("kwargs")))
        scalars = _plain_numbers(fields.get("args"), fields.get("kwargs"))
        original = dict(fields)
        for key in ("args", "kwargs"):
            if key in fields:
                fields[key] = self._to_wire(fields[key])
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
            raise submission_exception(
                _text(reply.get(protocol.ERROR_TYPE), "Exception"),
                _text(reply.get(protocol.ERROR_BUILTIN), "RuntimeError"),
                _text(reply.get(protocol.ERROR_MESSAGE), ""),
                _text(reply.get(protocol.ERROR_TRACEBACK), ""),
            )
        if op in (protocol.LOAD, protocol.NOTEBOOK):
            devices = reply.get(protocol.DEVICES)
            self.devices = devices if type(devices) is int else 0
        answer = protocol.NAMES if op in (protocol.LOAD, protocol.NOTEBOOK) else protocol.VALUE
        if reply_op != protocol.OK or answer not in reply:
            raise _submission_exception_class(RuntimeError)(f"malformed reply {reply_op!r} from the sandbox")
        return self._from_wire(reply[answer])

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

    def _to_wire(self, value: Any) -> Any:
        if isinstance(value, jax.Array):
            return protocol.ArrayValue(np.asarray(value), "jax")
        if type(value) is np.ndarray:
            return protocol.ArrayValue(value, "numpy")
        if isinstance(value, np.generic):
            return protocol.ArrayValue(np.asarray(value), "numpy-scalar")
        if isinstance(value, RemoteHandle):
            return value._ref
        if isinstance(value, PortableFunction):
            return protocol.FunctionSource(value.source, value.name)
        if isinstance(value, (jax.ShapeDtypeStruct, jax.core.ShapedArray)):
            dtype = np.dtype(value.dtype)
            name = protocol.extended_dtype_name(dtype) or dtype.name
            return protocol.ShapeDtype(tuple(value.shape), name, abstract=isinstance(value, jax.core.ShapedArray))
        if type(value) in (list, tuple):
            return type(value)(self._to_wire(item) for item in value)
        if type(value) is dict:
            return {key: self._to_wire(item) for key, item in value.items()}
        return value

    def _from_wire(self, value: Any) -> Any:
        if isinstance(value, protocol.ArrayValue):
            array = value.array
            if value.origin == "numpy-scalar":
                return array[()] if array.ndim == 0 else array
            if value.origin == "numpy":
                return array
            if jax.dtypes.canonicalize_dtype(array.dtype) != array.dtype:
                return WideJaxArray(array)
            return jax.device_put(array)
        if isinstance(value, protocol.HandleRef):
            return RemoteHandle(self, value)
        if isinstance(value, protocol.ShapeDtype):
            if not all(type(n) is int for n in value.shape):
                return value  # symbolic dimensions stay names
            dtype = protocol.EXTENDED_DTYPES.get(value.dtype, np.dtype(value.dtype))
            if value.abstract:  # a ShapedArray stays one: it is not the ShapeDtypeStruct it resembles
                return jax.core.ShapedArray(tuple(int(n) for n in value.shape), dtype)
            return jax.ShapeDtypeStruct(value.shape, dtype)
        if isinstance(value, list):
            return [self._from_wire(item) for item in value]
        if isinstance(value, tuple):
            return tuple(self._from_wire(item) for item in value)
        if isinstance(value, dict):
            return {key: self._from_wire(item) for key, item in value.items()}
        return value


def _plain_numbers(args: Any, kwargs: Any) -> tuple[tuple[str, str], ...]:
    """The Python numbers among a call's arguments (the harness's own), as text, with the
    position or keyword they were passed at: JAX treats them as constants, and a new value may
    mean a new compile."""
    passed = [*enumerate(args if isinstance(args, (list, tuple)) else ())]
    passed += list(kwargs.items()) if isinstance(kwargs, dict) else []
    found = [
        (str(where), repr(leaf)[:40])
        for where, value in passed
        for leaf in jax.tree_util.tree_leaves(value)
        if type(leaf) in (bool, int, float)
    ]
    return tuple(found[:16])


def _is_dimension(value: Any) -> bool:
    """A recorded dimension: a size, or the name of a symbolic dimension of an export."""
    return (type(value) is int and 0 <= value < 2**40) or (type(value) is str and 0 < len(value) <= 64)


def _text(value: Any, default: str) -> str:
    return value[:MAX_EXCEPTION_TEXT] if isinstance(value, str) else default
