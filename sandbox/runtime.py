"""The in-sandbox runtime: loads a submission and serves the harness's calls on it.

Started by a backend inside the sandbox (see ``backends.runtime_command``), it imports JAX
before any submission exists (that is the slow part, so a pool can start it early),
announces ``ready`` and then answers one request at a time on fds 0 and 1:

- ``load(source, filename)``: run the submission as the module ``submission``;
- ``call(target, method, args, kwargs)``: call a top-level function of the submission or
  a method of an object kept behind a handle;
- ``getattr(target, name)``: read an attribute of a handle;
- ``exit()``.

Replies carry plain data only: JAX arrays become ``.npy`` buffers, objects that cannot
cross stay here behind handles, exceptions cross as their type name and text. Every reply
also counts what JAX did during the request, both as API calls (``jax.jit``,
``Traced.lower``, ``Lowered.compile``, calls of a ``Compiled``) and as ``jax.monitoring``
events (tracing, lowering to MLIR, backend compiles). The harness decides the verdict; this
process is as untrusted as the submission it hosts.
"""

from __future__ import annotations

import builtins
import collections
import functools
import os
import sys
import time
import traceback
import types
from collections.abc import Callable
from typing import Any, BinaryIO

import numpy as np

from sandbox import protocol

# Attributes of kept objects that the harness may read or call. Anything else stays hidden
# (it would let a test reach arbitrary sandbox objects and make the interface unbounded).
ALLOWED_MEMBERS = frozenset(
    {
        "as_text",
        "cost_analysis",
        "memory_analysis",
        "compile",
        "lower",
        "trace",
        "in_avals",
        "out_avals",
        "in_tree",
        "out_tree",
        "args_info",
        "out_info",
        "jaxpr",
        "eqns",
        "shape",
        "dtype",
        "fun_name",
        "call",
        "mlir_module",
        "serialize",
        "in_shardings_hlo",
        "nr_devices",
        "platforms",
    }
)

MONITORING_EVENTS = {
    "/jax/core/compile/jaxpr_trace_duration": "trace_events",
    "/jax/core/compile/jaxpr_to_mlir_module_duration": "lowering_events",
    "/jax/core/compile/backend_compile_duration": "backend_compile_events",
}


class Runtime:
    """Holds the submission module, the handle table and the JAX event counters."""

    def __init__(self, channel_in: BinaryIO, channel_out: BinaryIO) -> None:
        self.channel_in = channel_in
        self.channel_out = channel_out
        self.counts: collections.Counter[str] = collections.Counter()
        self.compile_seconds = 0.0  # XLA backend compiles
        self.staging_seconds = 0.0  # tracing to a jaxpr and lowering to MLIR
        self.handles: dict[int, Any] = {}
        self.module: types.ModuleType | None = None
        import jax
        import jax.numpy as jnp

        self.jax = jax
        self.jnp = jnp
        self.array_type = type(jnp.zeros(()))
        self.numpy_scalar_types = frozenset(np.sctypeDict.values()) - {np.object_, np.str_, np.bytes_, np.void}
        self._install_counters()

    # -- counting what JAX does ------------------------------------------------------------

    def _install_counters(self) -> None:
        jax, counts = self.jax, self.counts
        from jax import stages

        def counted(name: str, function: Callable[..., Any]) -> Callable[..., Any]:
            @functools.wraps(function)
            def wrapper(*args: Any, **kwargs: Any) -> Any:
                counts[name] += 1
                return function(*args, **kwargs)

            return wrapper

        setattr(jax, "jit", counted("jit", jax.jit))  # noqa: B010 - jax.jit has no declared setter
        stages.Traced.lower = counted("lower", stages.Traced.lower)  # type: ignore[method-assign]
        stages.Lowered.compile = counted("compile", stages.Lowered.compile)  # type: ignore[method-assign]
        stages.Compiled.__call__ = counted("compiled_call", stages.Compiled.__call__)  # type: ignore[method-assign]

        def on_duration(event: str, duration: float, **_: Any) -> None:
            name = MONITORING_EVENTS.get(event)
            if name is not None:
                counts[name] += 1
                if name == "backend_compile_events":
                    self.compile_seconds += duration
                else:
                    self.staging_seconds += duration

        jax.monitoring.register_event_duration_secs_listener(on_duration)

    def _measured(self, action: Callable[[], Any]) -> tuple[Any, dict[str, Any]]:
        before, started = self.counts.copy(), time.perf_counter()
        compile_before, staging_before = self.compile_seconds, self.staging_seconds
        try:
            value = action()
        finally:
            events: dict[str, Any] = dict(self.counts - before)
            events["compile_seconds"] = self.compile_seconds - compile_before
            events["staging_seconds"] = self.staging_seconds - staging_before
            events["seconds"] = time.perf_counter() - started
        return value, events

    # -- values crossing the channel ---------------------------------------------------------

    def to_wire(self, value: Any, depth: int = 0) -> Any:
        """Turn a result into plain data; what cannot cross is kept behind a handle."""
        kind = type(value)
        if value is None or kind in (bool, int, float, str):
            return value
        if kind is self.array_type and np.dtype(value.dtype).kind in protocol.ALLOWED_DTYPE_KINDS:
            return protocol.ArrayValue(np.asarray(self.jax.device_get(value)), "jax")
        if kind is np.ndarray and value.dtype.kind in protocol.ALLOWED_DTYPE_KINDS:
            return protocol.ArrayValue(value, "numpy")
        if kind in self.numpy_scalar_types:
            return protocol.ArrayValue(np.asarray(value), "numpy-scalar")
        if depth < protocol.MAX_DEPTH and kind in (list, tuple):
            items = [self.to_wire(item, depth + 1) for item in value]
            return items if kind is list else tuple(items)
        if depth < protocol.MAX_DEPTH and kind is dict and all(type(k) is str for k in value):
            return {k: self.to_wire(v, depth + 1) for k, v in value.items()}
        handle_id = len(self.handles) + 1
        self.handles[handle_id] = value
        return protocol.HandleRef(handle_id, f"{kind.__module__}.{kind.__qualname__}", callable(value))

    def from_wire(self, value: Any) -> Any:
        """Turn a decoded argument into what the submission expects to receive."""
        if isinstance(value, protocol.ArrayValue):
            if value.origin == "jax":
                return self.jax.device_put(value.array)
            return value.array[()] if value.origin == "numpy-scalar" else value.array
        if isinstance(value, protocol.HandleRef):
            return self._handle(value.id)
        if isinstance(value, protocol.FunctionSource):
            namespace: dict[str, Any] = {"jax": self.jax, "jnp": self.jnp, "np": np}
            exec(compile(value.source, f"<function {value.name}>", "exec"), namespace)
            return namespace[value.name]
        if type(value) in (list, tuple):
            return type(value)(self.from_wire(item) for item in value)
        if type(value) is dict:
            return {k: self.from_wire(v) for k, v in value.items()}
        return value

    def _handle(self, handle_id: Any) -> Any:
        if type(handle_id) is not int or handle_id not in self.handles:
            raise LookupError(f"no object with handle {handle_id!r}")
        return self.handles[handle_id]

    def _target(self, target: Any) -> Any:
        if type(target) is int:
            return self._handle(target)
        if self.module is None:
            raise RuntimeError("no submission loaded")
        if type(target) is not str or target.startswith("_") or not hasattr(self.module, target):
            raise AttributeError(f"the submission defines no function named {target!r}")
        return getattr(self.module, target)

    # -- requests ---------------------------------------------------------------------------

    def load(self, source: str, filename: str) -> dict[str, Any]:
        module = types.ModuleType("submission")
        module.__file__ = filename
        sys.modules["submission"] = module
        self.module = module
        code = compile(source, filename, "exec", dont_inherit=True)
        _, events = self._measured(lambda: exec(code, module.__dict__))
        names = sorted(name for name, value in vars(module).items() if not name.startswith("_") and callable(value))
        return {"names": names, "events": events}

    def call(self, target: Any, method: Any, args: Any, kwargs: Any) -> dict[str, Any]:
        function = self._target(target)
        if method is not None:
            if type(method) is not str or method not in ALLOWED_MEMBERS:
                raise AttributeError(f"calling {method!r} on a sandboxed object is not allowed")
            function = getattr(function, method)
        call_args = self.from_wire(args)
        call_kwargs = self.from_wire(kwargs)
        value, events = self._measured(lambda: function(*call_args, **call_kwargs))
        return {"value": self.to_wire(value), "events": events}

    def get_attribute(self, target: Any, name: Any) -> dict[str, Any]:
        if type(name) is not str or name not in ALLOWED_MEMBERS:
            raise AttributeError(f"reading {name!r} of a sandboxed object is not allowed")
        value, events = self._measured(lambda: getattr(self._target(target), name))
        return {"value": self.to_wire(value), "events": events}

    def serve(self) -> None:
        self.send("ready", pid=os.getpid(), jax_version=self.jax.__version__, device=str(self.jax.devices()[0]))
        handlers: dict[str, Callable[..., dict[str, Any]]] = {
            "load": self.load,
            "call": self.call,
            "getattr": self.get_attribute,
        }
        while True:
            request = self.receive()
            if request is None:
                return
            op, fields = request
            if op == "exit":
                return
            handler = handlers.get(op)
            if handler is None:
                self.send("error", type="ProtocolError", message=f"unknown request {op!r}", traceback="")
                continue
            try:
                reply = handler(**fields)
            except BaseException as exc:
                self.send_error(exc)
                continue
            try:
                self.send("ok", **reply)
            except Exception as exc:  # a result that cannot be encoded
                self.send_error(exc)

    def send_error(self, exc: BaseException) -> None:
        text = "".join(traceback.format_exception(exc))
        # The nearest builtin base class lets the harness re-raise e.g. a JAX error that
        # subclasses TypeError as a TypeError.
        builtin = next(c.__name__ for c in type(exc).__mro__ if getattr(builtins, c.__name__, None) is c)
        self.send("error", type=type(exc).__name__, builtin=builtin, message=str(exc)[:4000], traceback=text[-8000:])

    def send(self, op: str, **fields: Any) -> None:
        self.channel_out.write(protocol.pack(op, **fields))
        self.channel_out.flush()

    def receive(self) -> tuple[str, dict[str, Any]] | None:
        prefix = _read_exactly(self.channel_in, protocol.FRAME.size)
        if prefix is None:
            return None
        (length,) = protocol.FRAME.unpack(prefix)
        payload = _read_exactly(self.channel_in, length)
        return None if payload is None else protocol.unpack(payload)


def _read_exactly(stream: BinaryIO, size: int) -> bytes | None:
    """Read ``size`` bytes from an unbuffered pipe; None if it closes first."""
    chunks, remaining = [], size
    while remaining:
        chunk = stream.read(remaining)
        if not chunk:
            return None
        chunks.append(chunk)
        remaining -= len(chunk)
    return b"".join(chunks)


def main() -> None:
    # The channel gets private copies of fds 0 and 1; the submission's own stdin reads
    # nothing and its stdout joins stderr, so printing cannot corrupt the channel.
    channel_in = os.fdopen(os.dup(0), "rb", buffering=0)
    channel_out = os.fdopen(os.dup(1), "wb", buffering=0)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.dup2(2, 1)
    sys.stdout = os.fdopen(1, "w", buffering=1, closefd=False)
    builtins.input = _no_input
    Runtime(channel_in, channel_out).serve()


def _no_input(prompt: object = "") -> str:
    raise EOFError("a submission has no standard input")
