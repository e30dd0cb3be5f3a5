"""Values between the submission and the wire: results become plain data, arguments become
what the submission expects.

JAX and NumPy arrays cross as ``.npy`` buffers that remember which they were; shapes without
values cross as ``ShapeDtype``; whatever cannot cross (a ``Compiled``, a ``Lowered``, a
function) stays here behind a numbered handle, with a kind told by identity with the real JAX
classes, captured before any submission runs, never from a name its class could choose.
"""

from __future__ import annotations

import functools
import types
from typing import Any

import numpy as np

from sandbox import protocol, wire_values
from sandbox.inside.jax_events import JaxEventRecord


class WireConversion:
    """Turns results into wire values and wire values into arguments; keeps the handle table."""

    def __init__(self, record: JaxEventRecord) -> None:
        import jax
        import jax.export
        import jax.numpy as jnp
        from jax import stages

        # Where each array received is noted as one of the request's inputs.
        self.record = record
        self.handles: dict[int, Any] = {}
        self.jax = jax
        self.jnp = jnp
        self.shape_dtype_type = jax.ShapeDtypeStruct
        self.abstract_array_type = jax.core.ShapedArray
        # The concrete class of JAX arrays (making one here would start the backend too early).
        from jax._src.array import ArrayImpl

        self.array_type = ArrayImpl
        self.numpy_scalar_types = (frozenset(np.sctypeDict.values()) - {np.object_, np.str_, np.bytes_, np.void}) | {
            dtype.type for dtype in wire_values.EXTENDED_DTYPES.values()
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

    def handle(self, handle_id: Any) -> Any:
        """The object kept behind ``handle_id``."""
        if type(handle_id) is not int or handle_id not in self.handles:
            raise LookupError(f"no object with handle {handle_id!r}")
        return self.handles[handle_id]

    def to_wire(self, value: Any, depth: int = 0) -> Any:
        """Turn a result into plain data; what cannot cross is kept behind a handle."""
        kind = type(value)
        if value is None or kind in (bool, int, float, str):
            return value
        if kind is self.array_type and wire_values.can_cross(np.dtype(value.dtype)):
            return wire_values.ArrayValue(np.asarray(self.jax.device_get(value)), "jax")
        if kind is np.ndarray and wire_values.can_cross(value.dtype):
            return wire_values.ArrayValue(value, "numpy")
        if kind in self.numpy_scalar_types:
            return wire_values.ArrayValue(np.asarray(value), "numpy-scalar")
        if depth < protocol.MAX_DEPTH and kind in (list, tuple):
            items = [self.to_wire(item, depth + 1) for item in value]
            return items if kind is list else tuple(items)
        if depth < protocol.MAX_DEPTH and kind is dict and all(wire_values.is_key(k) for k in value):
            return {k: self.to_wire(v, depth + 1) for k, v in value.items()}
        if kind in (bytes, bytearray):
            return bytes(value)
        if kind in (self.shape_dtype_type, self.abstract_array_type):
            dtype = np.dtype(value.dtype)
            if wire_values.can_cross(dtype) and len(value.shape) <= protocol.MAX_DIMENSIONS:
                shape = tuple(int(n) if type(n) is int else str(n)[:64] for n in value.shape)
                name = wire_values.extended_dtype_name(dtype) or dtype.name
                return wire_values.ShapeDtype(shape, name, abstract=kind is self.abstract_array_type)
        handle_id = len(self.handles) + 1
        self.handles[handle_id] = value
        type_name = f"{getattr(kind, '__module__', '?')}.{getattr(kind, '__qualname__', '?')}"
        return wire_values.HandleRef(
            handle_id, str(type_name)[: protocol.MAX_TYPE_NAME_CHARS], callable(value), self.kinds.get(kind, "object")
        )

    def from_wire(self, value: Any) -> Any:
        """Turn a decoded argument into what the submission expects to receive."""
        if isinstance(value, wire_values.ArrayValue):
            if value.origin == "jax":
                received = self.jax.device_put(value.array)
            else:
                received = value.array[()] if value.origin == "numpy-scalar" else value.array
            self.record.inputs.append(received)
            return received
        if isinstance(value, wire_values.HandleRef):
            return self.handle(value.id)
        if isinstance(value, wire_values.ShapeDtype):
            shape: Any = value.shape
            dtype = wire_values.EXTENDED_DTYPES.get(value.dtype, np.dtype(value.dtype))
            if not all(type(n) is int for n in shape):
                shape = self.jax.export.symbolic_shape(",".join(str(n) for n in shape))
            elif value.abstract:
                return self.abstract_array_type(shape, dtype)
            return self.shape_dtype_type(shape, dtype)
        if isinstance(value, wire_values.FunctionSource):
            namespace: dict[str, Any] = {"jax": self.jax, "jnp": self.jnp, "np": np}
            exec(compile(value.source, f"<function {value.name}>", "exec"), namespace)
            return namespace[value.name]
        if type(value) in (list, tuple):
            return type(value)(self.from_wire(item) for item in value)
        if type(value) is dict:
            return {k: self.from_wire(v) for k, v in value.items()}
        return value
