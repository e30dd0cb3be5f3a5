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

The harness decides the verdict; this process is as untrusted as the submission it hosts,
which can patch anything here (the README says what that allows).
"""

from __future__ import annotations

import builtins
import functools
import itertools
import os
import sys
import time
import traceback
import types
from collections.abc import Callable
from typing import Any, BinaryIO

import numpy as np

from sandbox import protocol
from sandbox.inside.kernel import Kernel
from sandbox.stages import describe_stages

MONITORING_EVENTS = {
    "/jax/core/compile/jaxpr_trace_duration": "trace_events",
    "/jax/core/compile/jaxpr_to_mlir_module_duration": "lowering_events",
    "/jax/core/compile/backend_compile_duration": "backend_compile_events",
}
# Caps on what one reply reports, so that a busy submission cannot make replies huge.
MAX_STAGE_RECORDS = 256
MAX_SIGNATURE_LEAVES = 64
# Lowerings and executables are kept alive (so that ids stay unique) up to this many, the newest.
MAX_TRACKED_OBJECTS = 4096
# What a jaxpr summary carries at most.
MAX_JAXPR_EQUATIONS = 100_000
MAX_JAXPR_TEXT = 200_000
# The top-level flow of a jaxpr (``_flow``) describes at most this many equations, each with at
# most this many operands, shardings and nested primitives.
MAX_FLOW_EQUATIONS = 1_000
MAX_FLOW_ITEMS = 64
MAX_FLOW_INNER = 1_000
MAX_FLOW_NAME = 64  # characters of a mesh axis's name


class Runtime:
    """Holds the submission module, the handle table and the record of what JAX did."""

    def __init__(self, channel_in: BinaryIO, channel_out: BinaryIO, *, notebook: bool = False) -> None:
        self.channel_in = channel_in
        self.channel_out = channel_out
        self.handles: dict[int, Any] = {}
        self.module: types.ModuleType | None = None
        import jax
        import jax.export
        import jax.extend
        import jax.numpy as jnp
        from jax import stages
        from jax._src import monitoring

        self.jax = jax
        self.jnp = jnp
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
        self.shape_dtype_type = jax.ShapeDtypeStruct
        self.abstract_array_type = jax.core.ShapedArray
        self.jaxpr_types = (jax.extend.core.Jaxpr, jax.extend.core.ClosedJaxpr)
        self.named_sharding_type = jax.sharding.NamedSharding
        self.mesh_type = jax.sharding.Mesh
        self.literal_type = jax.extend.core.Literal
        # The concrete class of JAX arrays (making one here would start the backend too early).
        from jax._src.array import ArrayImpl

        self.array_type = ArrayImpl
        self.numpy_scalar_types = (frozenset(np.sctypeDict.values()) - {np.object_, np.str_, np.bytes_, np.void}) | {
            dtype.type for dtype in protocol.EXTENDED_DTYPES.values()
        }
        # The real classes, captured before any submission runs: a kind is told by identity
        # with these, never by a name the submission could give its own class.
        self.kinds: dict[type, str] = {
            type(jax.jit(lambda value: value)): "jitted",
            stages.Traced: "traced",
            stages.Lowered: "lowered",
            stages.Compiled: "compiled",
            jax.export.Exported: "exported",
            jax.custom_jvp: "custom_jvp",
            jax.custom_vjp: "custom_vjp",
            types.FunctionType: "function",
            types.BuiltinFunctionType: "function",
            functools.partial: "function",
        }
        self.stages = stages
        self.monitoring = monitoring
        # The record: one tuple per event, numbered by ``sequence``; a record that does not
        # follow its predecessor's number was forged or removed.
        self.log: list[tuple[Any, ...]] = []
        self.sequence = itertools.count()
        self.tracked: dict[int, tuple[Any, int]] = {}  # id(object) -> (object, its record id)
        self.inputs: list[Any] = []  # the arrays this request received
        self.outputs: list[tuple[Any, int]] = []  # (value, record number) of executable calls
        self.forged_events: list[str] = []
        # The CPU backend starts when a submission loads (it fixes the number of host CPU
        # devices, which a problem may choose); any other starts now, which takes longer.
        self.backend_started = os.environ.get("JAX_PLATFORMS", "cpu") != "cpu"
        if self.backend_started:
            jax.devices()
        self._install_hooks()
        # Importing IPython and binding the kernel's sockets takes a third of a second: done
        # now, while the sandbox waits in a pool, not when a notebook arrives.
        self.kernel = Kernel() if notebook else None
        self.pristine = self._snapshot()

    # -- recording what JAX does -------------------------------------------------------------

    def _record(self, *fields: Any) -> int:
        number = next(self.sequence)
        self.log.append((number, *fields))
        return number

    def signature(self, tree: Any) -> list[list[Any]]:
        """Shapes and dtypes of the array leaves of ``tree`` (arguments, or ``args_info``)."""
        leaves = self.jax.tree_util.tree_leaves(tree)
        found = [leaf for leaf in leaves if hasattr(leaf, "shape") and hasattr(leaf, "dtype")]
        # A symbolic dimension (of a jax.export shape) is recorded by its name.
        return [
            [[n if type(n) is int else str(n)[:64] for n in leaf.shape], str(leaf.dtype)]
            for leaf in found[:MAX_SIGNATURE_LEAVES]
        ]

    def _track(self, value: Any, number: int) -> None:
        # The newest lowerings and executables are the ones a check links (a compile to its
        # lowering, a call to its executable): when full, the oldest make room, so that no
        # amount of earlier work (a notebook's %timeit, say) blinds the record of a later call.
        if len(self.tracked) >= MAX_TRACKED_OBJECTS:
            del self.tracked[next(iter(self.tracked))]
        self.tracked[id(value)] = (value, number)

    def _tracked_id(self, value: Any) -> int:
        entry = self.tracked.get(id(value))
        return entry[1] if entry is not None and entry[0] is value else -1

    def _install_hooks(self) -> None:
        jax, stages = self.jax, self.stages
        lowered_class, compiled_class = stages.Lowered, stages.Compiled
        original_jit = jax.jit
        original_lower = stages.Traced.lower
        original_compile = stages.Lowered.compile
        original_call = stages.Compiled.__call__

        @functools.wraps(original_jit)
        def jit(*args: Any, **kwargs: Any) -> Any:
            wrapped = original_jit(*args, **kwargs)
            self._record("jit")
            return wrapped

        @functools.wraps(original_lower)
        def lower(traced: Any, *args: Any, **kwargs: Any) -> Any:
            lowered = original_lower(traced, *args, **kwargs)
            if type(lowered) is lowered_class:
                self._track(lowered, self._record("lower", -1, self.signature(lowered.args_info)))
            return lowered

        @functools.wraps(original_compile)
        def compile(lowered: Any, *args: Any, **kwargs: Any) -> Any:
            compiled = original_compile(lowered, *args, **kwargs)
            if type(lowered) is lowered_class and type(compiled) is compiled_class:
                number = self._record("compile", self._tracked_id(lowered), self.signature(compiled.args_info))
                self._track(compiled, number)
            return compiled

        @functools.wraps(original_call)
        def call(compiled: Any, *args: Any, **kwargs: Any) -> Any:
            result = original_call(compiled, *args, **kwargs)
            if type(compiled) is compiled_class:
                arrays = [leaf for leaf in jax.tree_util.tree_leaves((args, kwargs)) if hasattr(leaf, "dtype")]
                from_inputs = [any(leaf is given for given in self.inputs) for leaf in arrays]
                number = self._record("call", self._tracked_id(compiled), self.signature(arrays), from_inputs)
                self.outputs.append((result, number))
            return result

        def on_duration(event: str, duration_secs: float, **_: str | int) -> None:
            name = MONITORING_EVENTS.get(event)
            if name is None:
                return
            # Called by monitoring.record_event_duration_secs, itself called from inside JAX.
            caller = sys._getframe(2)
            if not str(caller.f_globals.get("__name__", "")).startswith(("jax.", "jaxlib.")):
                if len(self.forged_events) < 5:
                    self.forged_events.append(f"a {name[:-1].replace('_', ' ')} was emitted by code outside JAX")
                return
            self._record("event", name, float(duration_secs))

        setattr(jax, "jit", jit)  # noqa: B010 - jax.jit has no declared setter
        stages.Traced.lower = lower
        stages.Lowered.compile = compile
        stages.Compiled.__call__ = call
        self.monitoring.register_event_duration_secs_listener(on_duration)
        self.listener = on_duration
        self.hooks: tuple[tuple[Any, str, Any], ...] = (
            (jax, "jit", jit),
            (stages.Traced, "lower", lower),
            (stages.Lowered, "compile", compile),
            (stages.Compiled, "__call__", call),
            (jax.stages, "Compiled", compiled_class),
            (jax.stages, "Lowered", lowered_class),
        )

    def _snapshot(self) -> tuple[Any, ...]:
        """The functions this runtime trusts, their code and their closures' contents."""
        functions: list[Any] = [hook for _, _, hook in self.hooks if callable(hook)] + [self.listener]
        modules = [sys.modules[name] for name in (__name__, describe_stages.__module__, Kernel.__module__)]
        modules.append(protocol)
        for namespace in (vars(Runtime), *(vars(module) for module in modules)):
            functions += [value for value in namespace.values() if isinstance(value, types.FunctionType)]
        functions += [value.__func__ for value in vars(Runtime).values() if isinstance(value, staticmethod)]
        cells = [cell for f in functions if isinstance(f, types.FunctionType) for cell in f.__closure__ or ()]
        return (
            (dict(self.transforms), self.deserialize_exported),
            dict(vars(Runtime)),
            [(f, f.__code__, f.__defaults__) for f in functions if isinstance(f, types.FunctionType)],
            [(cell, cell.cell_contents) for cell in cells],
            {name: value for name, value in vars(protocol).items() if not name.startswith("__")},
        )

    def tampering(self) -> list[str]:
        """What the submission changed of this runtime's hooks, listeners, methods and record."""
        problems = list(self.forged_events)
        trusted, class_members, functions, cells, protocol_names = self.pristine
        if (dict(self.transforms), self.deserialize_exported) != trusted:
            problems.append("the runtime's copies of JAX's transformations were replaced")
        if type(self) is not Runtime or dict(vars(Runtime)) != class_members:
            problems.append("the runtime's methods were replaced")
        if any(f.__code__ is not code or f.__defaults__ is not defaults for f, code, defaults in functions):
            problems.append("the code of the runtime's functions was replaced")
        if any(cell.cell_contents is not value for cell, value in cells):
            problems.append("the runtime's hooks were rewired")
        if {name: value for name, value in vars(protocol).items() if not name.startswith("__")} != protocol_names:
            problems.append("the channel's protocol module was changed")
        for owner, name, installed in self.hooks:
            if (vars(owner).get(name) if isinstance(owner, type) else getattr(owner, name, None)) is not installed:
                problems.append(f"{getattr(owner, '__name__', owner)}.{name} was replaced")
        if sum(listener is self.listener for listener in self.monitoring.get_event_duration_listeners()) != 1:
            problems.append("the runtime's jax.monitoring listener was removed or duplicated")
        expected_next = int(repr(self.sequence)[len("count(") : -1])
        if [record[0] for record in self.log] != list(range(expected_next)):
            problems.append("the runtime's record of JAX events was written to")
        return problems

    def _measured(self, action: Callable[[], Any]) -> tuple[Any, dict[str, Any]]:
        first, started = len(self.log), time.perf_counter()
        self.outputs = []
        try:
            value = action()
        finally:
            seconds = time.perf_counter() - started
        return value, self._events(self.log[first:], value, seconds)

    def _events(self, records: list[tuple[Any, ...]], value: Any, seconds: float) -> dict[str, Any]:
        returned = self._leaves(value)
        returned_numbers = {number for output, number in self.outputs if any(output is leaf for leaf in returned)}
        events: dict[str, Any] = {name: 0 for name in ("jit", "lower", "compile", "compiled_call")}
        events.update({name: 0 for name in MONITORING_EVENTS.values()})
        events.update(compile_seconds=0.0, staging_seconds=0.0, seconds=seconds)
        stage_records: list[dict[str, Any]] = []
        for number, stage, *rest in records:
            if stage == "event":
                name, duration = rest
                events[name] += 1
                events["compile_seconds" if name == "backend_compile_events" else "staging_seconds"] += duration
                continue
            events["compiled_call" if stage == "call" else stage] += 1
            if stage != "jit" and len(stage_records) < MAX_STAGE_RECORDS:
                source, signature, *flags = rest
                stage_records.append(
                    {
                        "stage": stage,
                        "id": number,
                        "source": source,
                        "signature": signature,
                        "inputs": flags[0] if flags else [],
                        "returned": number in returned_numbers,
                    }
                )
        events["stages"] = stage_records
        return events

    def _leaves(self, value: Any) -> list[Any]:
        """The value returned and, one or two levels down, the items of its lists, tuples and dicts."""
        found = [value]
        for item in found[:64]:
            if type(item) in (list, tuple):
                found += list(item)[:64]
            elif type(item) is dict:
                found += list(item.values())[:64]
        return found

    # -- values crossing the channel ---------------------------------------------------------

    def to_wire(self, value: Any, depth: int = 0) -> Any:
        """Turn a result into plain data; what cannot cross is kept behind a handle."""
        kind = type(value)
        if value is None or kind in (bool, int, float, str):
            return value
        if kind is self.array_type and protocol.can_cross(np.dtype(value.dtype)):
            return protocol.ArrayValue(np.asarray(self.jax.device_get(value)), "jax")
        if kind is np.ndarray and protocol.can_cross(value.dtype):
            return protocol.ArrayValue(value, "numpy")
        if kind in self.numpy_scalar_types:
            return protocol.ArrayValue(np.asarray(value), "numpy-scalar")
        if depth < protocol.MAX_DEPTH and kind in (list, tuple):
            items = [self.to_wire(item, depth + 1) for item in value]
            return items if kind is list else tuple(items)
        if depth < protocol.MAX_DEPTH and kind is dict and all(protocol.is_key(k) for k in value):
            return {k: self.to_wire(v, depth + 1) for k, v in value.items()}
        if kind in (bytes, bytearray):
            return bytes(value)
        if kind in (self.shape_dtype_type, self.abstract_array_type):
            dtype = np.dtype(value.dtype)
            if protocol.can_cross(dtype) and len(value.shape) <= protocol.MAX_DIMENSIONS:
                shape = tuple(int(n) if type(n) is int else str(n)[:64] for n in value.shape)
                name = protocol.extended_dtype_name(dtype) or dtype.name
                return protocol.ShapeDtype(shape, name, abstract=kind is self.abstract_array_type)
        handle_id = len(self.handles) + 1
        self.handles[handle_id] = value
        type_name = f"{getattr(kind, '__module__', '?')}.{getattr(kind, '__qualname__', '?')}"
        return protocol.HandleRef(
            handle_id, str(type_name)[: protocol.MAX_TYPE_NAME_CHARS], callable(value), self.kinds.get(kind, "object")
        )

    def from_wire(self, value: Any) -> Any:
        """Turn a decoded argument into what the submission expects to receive."""
        if isinstance(value, protocol.ArrayValue):
            if value.origin == "jax":
                received = self.jax.device_put(value.array)
            else:
                received = value.array[()] if value.origin == "numpy-scalar" else value.array
            self.inputs.append(received)
            return received
        if isinstance(value, protocol.HandleRef):
            return self._handle(value.id)
        if isinstance(value, protocol.ShapeDtype):
            shape: Any = value.shape
            dtype = protocol.EXTENDED_DTYPES.get(value.dtype, np.dtype(value.dtype))
            if not all(type(n) is int for n in shape):
                shape = self.jax.export.symbolic_shape(",".join(str(n) for n in shape))
            elif value.abstract:
                return self.abstract_array_type(shape, dtype)
            return self.shape_dtype_type(shape, dtype)
        if isinstance(value, protocol.FunctionSource):
            namespace: dict[str, Any] = {"jax": self.jax, "jnp": self.jnp, "np": np}
            exec(compile(value.source, f"<function {value.name}>", "exec"), namespace)
            return namespace[value.name]
        if type(value) in (list, tuple):
            return type(value)(self.from_wire(item) for item in value)
        if type(value) is dict:
            return {k: self.from_wire(v) for k, v in value.items()}
        return value

    def summarize_jaxpr(self, closed: Any) -> dict[str, Any]:
        """A jaxpr as plain data: its top-level primitives, every primitive at any depth, its text."""
        every = self._every_primitive([closed.jaxpr], MAX_JAXPR_EQUATIONS)
        return {
            "primitives": [str(equation.primitive.name) for equation in closed.jaxpr.eqns[:MAX_JAXPR_EQUATIONS]],
            "all_primitives": every[:MAX_JAXPR_EQUATIONS],
            "equations": len(every),
            "text": str(closed)[:MAX_JAXPR_TEXT],
            "flow": self._flow(closed.jaxpr),
        }

    @staticmethod
    def _parameters(equation: Any) -> Any:
        """Every value among an equation's parameters, a list or tuple of them opened one level."""
        for value in equation.params.values():
            yield from value if type(value) in (list, tuple) else (value,)

    def _nested_jaxprs(self, equation: Any) -> list[Any]:
        jaxprs = [item for item in self._parameters(equation) if isinstance(item, self.jaxpr_types)]
        return [getattr(item, "jaxpr", item) for item in jaxprs]

    def _every_primitive(self, jaxprs: list[Any], limit: int) -> list[str]:
        """The primitives of the equations of ``jaxprs`` and of every jaxpr nested in them,
        breadth first, until at least ``limit`` are found."""
        names: list[str] = []
        pending = list(jaxprs)
        while pending and len(names) < limit:
            for equation in pending.pop(0).eqns:
                names.append(str(equation.primitive.name))
                pending.extend(self._nested_jaxprs(equation))
        return names

    def _flow(self, jaxpr: Any) -> dict[str, Any]:
        """The top level of a jaxpr as data, read from JAX's objects rather than its printout:
        which variables (numbered) each equation takes and gives, the ``NamedSharding``s among its
        parameters (``device_put``'s targets, ``jit``'s ``in_shardings``), and the primitives of
        the jaxprs nested in it, at any depth. Literal operands are -1."""
        numbers: dict[Any, int] = {}

        def number(variable: Any) -> int:
            if isinstance(variable, self.literal_type):
                return -1
            return numbers.setdefault(variable, len(numbers))

        def numbered(variables: Any) -> list[int]:
            return [number(variable) for variable in list(variables)[:MAX_FLOW_ITEMS]]

        equations = []
        inputs = numbered(jaxpr.invars)
        for equation in jaxpr.eqns[:MAX_FLOW_EQUATIONS]:
            # Exactly JAX's classes: a subclass made by the submission could say anything.
            shardings = [
                self._named_sharding(item)
                for item in self._parameters(equation)
                if type(item) is self.named_sharding_type and type(item.mesh) is self.mesh_type
            ]
            equations.append(
                {
                    "primitive": str(equation.primitive.name),
                    "inputs": numbered(equation.invars),
                    "outputs": numbered(equation.outvars),
                    "shardings": shardings[:MAX_FLOW_ITEMS],
                    "inner": self._every_primitive(self._nested_jaxprs(equation), MAX_FLOW_INNER)[:MAX_FLOW_INNER],
                }
            )
        return {"inputs": inputs, "outputs": numbered(jaxpr.outvars), "equations": equations}

    @staticmethod
    def _named_sharding(sharding: Any) -> dict[str, Any]:
        """A NamedSharding as data: its mesh's axes with their sizes, and for each dimension of the
        array the mesh axes it is split over (``P('d')`` and ``P(('d',))`` alike give ``[["d"]]``)."""
        axes = list(sharding.mesh.shape.items())[:MAX_FLOW_ITEMS]
        mesh = [[str(name)[:MAX_FLOW_NAME], int(size)] for name, size in axes]
        spec = []
        for entry in list(sharding.spec)[:MAX_FLOW_ITEMS]:
            names = () if entry is None else (entry,) if isinstance(entry, str) else tuple(entry)
            spec.append([str(name)[:MAX_FLOW_NAME] for name in names[:MAX_FLOW_ITEMS]])
        return {"mesh": mesh, "spec": spec}

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

    def load(self, source: str, filename: str, cpu_devices: Any = 1) -> dict[str, Any]:
        device = self.start_backend(cpu_devices)
        module = types.ModuleType("submission")
        module.__file__ = filename
        sys.modules["submission"] = module
        self.module = module
        code = compile(source, filename, "exec", dont_inherit=True)
        _, events = self._measured(lambda: exec(code, module.__dict__))
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
        (namespace, run), events = self._measured(lambda: kernel.serve(cells, output_limit))
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
        self.inputs = []
        call_args = self.from_wire(args)
        call_kwargs = self.from_wire(kwargs)
        value, events = self._measured(lambda: function(*call_args, **call_kwargs))
        return {protocol.VALUE: self.to_wire(value), protocol.EVENTS: events}

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
        value, events = self._measured(lambda: function)
        return {protocol.VALUE: self.to_wire(value), protocol.EVENTS: events}

    def _summarized(self, make_jaxpr: Callable[..., Any]) -> Callable[..., dict[str, Any]]:
        summarize = self.summarize_jaxpr
        return lambda *args, **kwargs: summarize(make_jaxpr(*args, **kwargs))

    def deserialize(self, data: Any) -> dict[str, Any]:
        """``jax.export.deserialize`` of ``data`` (untrusted bytes stay in the sandbox)."""
        if type(data) is not bytes:
            raise TypeError("deserialize needs bytes")
        value, events = self._measured(lambda: self.deserialize_exported(bytearray(data)))
        return {protocol.VALUE: self.to_wire(value), protocol.EVENTS: events}

    def insight(self, target: Any, args: Any, kwargs: Any) -> dict[str, Any]:
        """What JAX makes of an entry point for one input: its jaxpr, the StableHLO of its
        lowering and the cost analysis of its executable, as text and numbers.

        An entry point that cannot be traced (it lowers and compiles for itself, as an
        ahead-of-time solution does) is told by the newest lowering and executable its own
        code made instead (``source`` says which). Texts are capped; failures are reported,
        never raised: this is for the student to read, not a test.
        """
        function = self._target(target)
        self.inputs = []
        call_args, call_kwargs = self.from_wire(args), self.from_wire(kwargs)

        def own_executable() -> tuple[Any, Any]:
            # Called once more on this input, to see what its own code lowers and compiles
            # for it (not for another test's input, which the student may not see).
            since = len(self.log)
            function(*call_args, **call_kwargs)
            return self._newest(self.stages.Lowered, since), self._newest(self.stages.Compiled, since)

        jit = self.transforms["jit"]
        value, events = self._measured(lambda: describe_stages(jit, function, call_args, call_kwargs, own_executable))
        return {protocol.VALUE: self.to_wire(value), protocol.EVENTS: events}

    def _newest(self, kind: type, since: int) -> Any:
        """The most recent object of exactly this JAX class made from record ``since`` on, or None."""
        made = [(number, value) for value, number in self.tracked.values() if type(value) is kind and number >= since]
        return max(made, key=lambda entry: entry[0])[1] if made else None

    def get_attribute(self, target: Any, name: Any) -> dict[str, Any]:
        if type(name) is not str or name not in protocol.HANDLE_ATTRIBUTES:
            raise AttributeError(f"reading {name!r} of a sandboxed object is not allowed")
        value, events = self._measured(lambda: getattr(self._target(target), name))
        return {protocol.VALUE: self.to_wire(value), protocol.EVENTS: events}

    def serve(self) -> None:
        # Bound now, before any submission runs: a submission that replaces the methods
        # afterwards is caught by these originals rather than answering for them.
        check, send, receive = self.tampering, self.send, self.receive
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
    control = os.environ.pop(protocol.FORK_SERVER_VARIABLE, None)
    if control is not None:
        from sandbox.inside.forks import serve_forks

        serve_forks(int(control))
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
