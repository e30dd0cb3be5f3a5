"""The in-sandbox runtime: loads a submission and serves the harness's calls on it.

Started by a backend inside the sandbox (see ``backends.runtime_command``), it imports JAX
before any submission exists (that is the slow part, so a pool can start it early),
announces ``ready`` and then answers one request at a time on fds 0 and 1 (the operations
are defined in ``protocol``):

- ``load(source, filename, cpu_devices)``: start JAX's backend (with that many host CPU
  devices) and run the submission as the module ``submission``;
- ``notebook(cells, output_limit, cpu_devices)``: the same for a notebook, in a sandbox
  started for one: nbclient runs the code cells on the IPython kernel prepared at start-up,
  both in here (``notebook_runner``); what the cells defined is the submission, and the reply
  carries the cells' outputs and how the run ended;
- ``call(target, method, args, kwargs)``: call a top-level function of the submission or
  a method of an object kept behind a handle;
- ``getattr(target, name)``: read an attribute of a handle;
- ``transform(target, transforms)``: apply JAX's transformations (``jit``, ``vmap``,
  ``grad``, ``make_jaxpr``, ...) to a function of the submission, as a handle;
- ``deserialize(data)``: a ``jax.export.Exported`` from bytes, as a handle;
- ``insight(target, args, kwargs)``: what JAX makes of an entry point for one input (its
  jaxpr, StableHLO and cost), as plain data, for the student to read;
- ``exit()``.

Replies carry plain data only: JAX arrays become ``.npy`` buffers, objects that cannot
cross stay here behind handles (with a kind told from the real JAX classes), exceptions
cross as their type name and text. Every reply also says what JAX did during the request:
each ``.lower(...)``, each executable compiled from such a lowering and each call of one,
with the abstract signature it was for and whether it was called on this request's own
inputs and gave the value returned; and the ``jax.monitoring`` events (tracing, lowering to
MLIR, backend compiles). After every request the runtime checks that its hooks are still
the ones it installed and says so in the reply.

This module holds the requests and the entry point; its parts live beside it: the record of
what JAX did and its hooks (``jax_events``), values to and from the wire (``wire_conversion``),
jaxpr summaries (``jaxpr_summary``), the tamper check (``integrity``), and, in a fork server's
sandbox, the loop that forks one runtime per submission (``forks``).

The harness decides the verdict; this process is as untrusted as the submission it hosts,
which can patch anything here (docs/sandbox-and-security.md says what that allows).
"""

from __future__ import annotations

import builtins
import functools
import os
import sys
import traceback
import types
from collections.abc import Callable
from typing import Any, BinaryIO

from sandbox import protocol
from sandbox.inside.forks import serve_forks
from sandbox.inside.integrity import RuntimeIntegrity
from sandbox.inside.jax_events import JaxEventRecord
from sandbox.inside.jaxpr_summary import JaxprSummarizer
from sandbox.inside.kernel import Kernel
from sandbox.inside.wire_conversion import WireConversion
from sandbox.stages import describe_stages


class Runtime:
    """Holds the submission module and answers the harness's requests on it."""

    def __init__(self, channel_in: BinaryIO, channel_out: BinaryIO, *, notebook: bool = False) -> None:
        self.channel_in = channel_in
        self.channel_out = channel_out
        self.module: types.ModuleType | None = None
        import jax
        import jax.export

        self.jax = jax
        # JAX's transformations as they are before any submission runs: a test applies these,
        # not whatever a submission left in the ``jax`` module.
        self.transforms: dict[str, Callable[..., Any]] = {
            "jit": jax.jit,
            "vmap": jax.vmap,
            "grad": jax.grad,
            "value_and_grad": jax.value_and_grad,
            "jacfwd": jax.jacfwd,
            "make_jaxpr": jax.make_jaxpr,
            "eval_shape": jax.eval_shape,
        }
        self.deserialize_exported = jax.export.deserialize
        self.record = JaxEventRecord()
        # Before the hooks: telling kinds apart makes a jitted function, which is no event.
        self.values = WireConversion(self.record)
        self.jaxprs = JaxprSummarizer()
        # The CPU backend starts when a submission loads (it fixes the number of host CPU
        # devices, which a problem may choose); any other starts now, which takes longer.
        self.backend_started = os.environ.get("JAX_PLATFORMS", "cpu") != "cpu"
        if self.backend_started:
            jax.devices()
        self.record.install_hooks()
        # Importing IPython and binding the kernel's sockets takes a third of a second: done
        # now, while the sandbox waits in a pool, not when a notebook arrives.
        self.kernel = Kernel() if notebook else None
        self.integrity = RuntimeIntegrity(
            self,
            self.record,
            {"record": self.record, "values": self.values, "jaxprs": self.jaxprs},
            [sys.modules[describe_stages.__module__], sys.modules[Kernel.__module__]],
        )

    def _target(self, target: Any) -> Any:
        if type(target) is int:
            return self.values.handle(target)
        if self.module is None:
            raise RuntimeError("no submission loaded")
        if type(target) is not str or target.startswith("_") or not hasattr(self.module, target):
            raise AttributeError(f"the submission defines no function named {target!r}")
        return getattr(self.module, target)

    # -- requests ---------------------------------------------------------------------------

    def load(self, source: str, filename: str, cpu_devices: Any = 1) -> dict[str, Any]:
        device = self.start_backend(cpu_devices)
        module = types.ModuleType("submission")
        module.__file__ = filename
        sys.modules["submission"] = module
        self.module = module
        code = compile(source, filename, "exec", dont_inherit=True)
        _, events = self.record.measured(lambda: exec(code, module.__dict__))
        return self._loaded(vars(module), events, device)

    def notebook(self, cells: Any, output_limit: Any, cpu_devices: Any = 1) -> dict[str, Any]:
        if self.kernel is None:
            raise RuntimeError("this sandbox was started without a kernel")
        if type(cells) is not list or not all(type(cell) is str for cell in cells):
            raise ValueError("cells must be a list of the code cells' sources")
        if type(output_limit) is not int or output_limit < 0:
            raise ValueError("output_limit must be a number of bytes")
        device = self.start_backend(cpu_devices)
        kernel, self.kernel = self.kernel, None  # one notebook a sandbox
        module = types.ModuleType("submission")
        sys.modules["submission"] = module
        self.module = module
        (namespace, run), events = self.record.measured(lambda: kernel.serve(cells, output_limit))
        module.__dict__.update(namespace)
        return {**self._loaded(namespace, events, device), **run}

    def _loaded(self, namespace: dict[str, Any], events: dict[str, Any], device: str) -> dict[str, Any]:
        """The reply to a load: the public functions the submission defined, and what JAX did."""
        names = sorted(name for name, value in namespace.items() if not name.startswith("_") and callable(value))
        return {
            protocol.NAMES: names,
            protocol.EVENTS: events,
            protocol.DEVICE: device,
            protocol.DEVICES: len(self.jax.devices()),
        }

    def start_backend(self, cpu_devices: Any) -> str:
        """Start JAX's backend, with ``cpu_devices`` host CPU devices, once; returns the device."""
        if type(cpu_devices) is not int or not 1 <= cpu_devices <= protocol.MAX_CPU_DEVICES:
            raise ValueError(f"cpu_devices must be an int from 1 to {protocol.MAX_CPU_DEVICES}")
        if not self.backend_started:
            self.jax.config.update("jax_num_cpu_devices", cpu_devices)
        self.backend_started = True
        return str(self.jax.devices()[0])

    def call(self, target: Any, method: Any, args: Any, kwargs: Any) -> dict[str, Any]:
        function = self._target(target)
        if method is not None:
            if type(method) is not str or method not in protocol.HANDLE_METHODS:
                raise AttributeError(f"calling {method!r} on a sandboxed object is not allowed")
            function = getattr(function, method)
        self.record.inputs = []
        call_args = self.values.from_wire(args)
        call_kwargs = self.values.from_wire(kwargs)
        value, events = self.record.measured(lambda: function(*call_args, **call_kwargs))
        return {protocol.VALUE: self.values.to_wire(value), protocol.EVENTS: events}

    def transform(self, target: Any, transforms: Any) -> dict[str, Any]:
        """Apply ``transforms`` (``[name, options]`` pairs, innermost first) to ``target``."""
        function = self._target(target)
        if type(transforms) is not list or len(transforms) > protocol.MAX_TRANSFORMS:
            raise ValueError("transforms must be a short list")
        for position, entry in enumerate(transforms):
            if type(entry) is not list or len(entry) != 2 or type(entry[1]) is not dict:
                raise ValueError("each transform is a [name, options] pair")
            name, options = entry
            if name not in protocol.TRANSFORMS or not set(options) <= protocol.TRANSFORMS[name]:
                raise ValueError(f"the transformation {name!r} with options {sorted(options)} is not allowed")
            if name in ("make_jaxpr", "eval_shape") and position != len(transforms) - 1:
                raise ValueError(f"{name} gives data, not a function: it must come last")
            options = {key: _static_option(value) for key, value in options.items()}
            if name == "make_jaxpr":
                function = self._summarized(self.transforms[name](function, **options))
            elif name == "eval_shape":
                function = functools.partial(self.transforms[name], function)
            else:
                function = self.transforms[name](function, **options)
        value, events = self.record.measured(lambda: function)
        return {protocol.VALUE: self.values.to_wire(value), protocol.EVENTS: events}

    def _summarized(self, make_jaxpr: Callable[..., Any]) -> Callable[..., dict[str, Any]]:
        summarize = self.jaxprs.summarize
        return lambda *args, **kwargs: summarize(make_jaxpr(*args, **kwargs))

    def deserialize(self, data: Any) -> dict[str, Any]:
        """``jax.export.deserialize`` of ``data`` (untrusted bytes stay in the sandbox)."""
        if type(data) is not bytes:
            raise TypeError("deserialize needs bytes")
        value, events = self.record.measured(lambda: self.deserialize_exported(bytearray(data)))
        return {protocol.VALUE: self.values.to_wire(value), protocol.EVENTS: events}

    def insight(self, target: Any, args: Any, kwargs: Any) -> dict[str, Any]:
        """What JAX makes of an entry point for one input: its jaxpr, the StableHLO of its
        lowering and the cost analysis of its executable, as text and numbers.

        An entry point that cannot be traced (it lowers and compiles for itself, as an
        ahead-of-time solution does) is told by the newest lowering and executable its own
        code made instead (``source`` says which). Texts are capped; failures are reported,
        never raised: this is for the student to read, not a test.
        """
        function = self._target(target)
        self.record.inputs = []
        call_args, call_kwargs = self.values.from_wire(args), self.values.from_wire(kwargs)

        def own_executable() -> tuple[Any, Any]:
            # Called once more on this input, to see what its own code lowers and compiles
            # for it (not for another test's input, which the student may not see).
            since = len(self.record.log)
            function(*call_args, **call_kwargs)
            record = self.record
            return record.newest(record.stages.Lowered, since), record.newest(record.stages.Compiled, since)

        jit = self.transforms["jit"]
        value, events = self.record.measured(
            lambda: describe_stages(jit, function, call_args, call_kwargs, own_executable)
        )
        return {protocol.VALUE: self.values.to_wire(value), protocol.EVENTS: events}

    def get_attribute(self, target: Any, name: Any) -> dict[str, Any]:
        if type(name) is not str or name not in protocol.HANDLE_ATTRIBUTES:
            raise AttributeError(f"reading {name!r} of a sandboxed object is not allowed")
        value, events = self.record.measured(lambda: getattr(self._target(target), name))
        return {protocol.VALUE: self.values.to_wire(value), protocol.EVENTS: events}

    def serve(self) -> None:
        # Bound now, before any submission runs: a submission that replaces the methods
        # afterwards is caught by these originals rather than answering for them.
        check, send, receive = self.integrity.tampering, self.send, self.receive
        send(protocol.READY, **{protocol.PID: os.getpid(), protocol.JAX_VERSION: self.jax.__version__})
        handlers: dict[str, Callable[..., dict[str, Any]]] = {
            protocol.LOAD: self.load,
            protocol.NOTEBOOK: self.notebook,
            protocol.CALL: self.call,
            protocol.GETATTR: self.get_attribute,
            protocol.TRANSFORM: self.transform,
            protocol.DESERIALIZE: self.deserialize,
            protocol.INSIGHT: self.insight,
        }
        while True:
            request = receive()
            if request is None:
                return
            op, fields = request
            if op == protocol.EXIT:
                return
            handler = handlers[op]  # unpack admits the harness's operations only
            try:
                reply = handler(**fields)
            except BaseException as exc:
                send(protocol.ERROR, **self.error_fields(exc), **{protocol.INTEGRITY: check()})
                continue
            try:
                send(protocol.OK, **reply, **{protocol.INTEGRITY: check()})
            except Exception as exc:  # a result that cannot be encoded
                send(protocol.ERROR, **self.error_fields(exc), **{protocol.INTEGRITY: check()})

    @staticmethod
    def error_fields(exc: BaseException) -> dict[str, str]:
        """An exception as the harness receives it, whatever it does when printed."""
        try:
            text = "".join(traceback.format_exception(exc))
            message = str(exc)
        except BaseException:
            text, message = "", "(the exception could not be printed)"
        # The nearest builtin base class lets the harness re-raise e.g. a JAX error that
        # subclasses TypeError as a TypeError.
        builtin = next(c.__name__ for c in type(exc).__mro__ if getattr(builtins, c.__name__, None) is c)
        return {
            protocol.ERROR_TYPE: type(exc).__name__,
            protocol.ERROR_BUILTIN: builtin,
            protocol.ERROR_MESSAGE: message[:4000],
            protocol.ERROR_TRACEBACK: text[-8000:],
        }

    def send(self, op: str, **fields: Any) -> None:
        self.channel_out.write(protocol.pack(op, **fields))
        self.channel_out.flush()

    def receive(self) -> tuple[str, dict[str, Any]] | None:
        prefix = _read_exactly(self.channel_in, protocol.FRAME.size)
        if prefix is None:
            return None
        (length,) = protocol.FRAME.unpack(prefix)
        payload = _read_exactly(self.channel_in, length)
        return None if payload is None else protocol.unpack(payload, sender=protocol.HARNESS)


def _static_option(value: Any) -> Any:
    """A transformation's option: an int, None, or a tuple of them (lists become tuples)."""
    if value is None or type(value) is int:
        return value
    if type(value) in (list, tuple) and len(value) <= 32:
        return tuple(_static_option(item) for item in value)
    raise ValueError(f"a transformation option must be an int, None or a tuple of them, not {type(value).__name__}")


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
    """Serve one submission, or, in a fork server's sandbox, fork one runtime per submission."""
    control = os.environ.pop(protocol.FORK_SERVER_VARIABLE, None)
    if control is not None:
        serve_forks(int(control), serve_submission=serve_one)
    else:
        serve_one()


def serve_one() -> None:
    """Serve one submission on fds 0 and 1 (its output goes to fd 2), then exit."""
    # The channel gets private copies of fds 0 and 1; the submission's own stdin reads
    # nothing and its stdout joins stderr, so printing cannot corrupt the channel.
    channel_in = os.fdopen(os.dup(0), "rb", buffering=0)
    channel_out = os.fdopen(os.dup(1), "wb", buffering=0)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.dup2(2, 1)
    sys.stdout = os.fdopen(1, "w", buffering=1, closefd=False)
    builtins.input = _no_input
    Runtime(channel_in, channel_out, notebook=os.environ.pop(protocol.NOTEBOOK_VARIABLE, "") == "1").serve()


def _no_input(prompt: object = "") -> str:
    raise EOFError("a submission has no standard input")
