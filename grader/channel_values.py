"""Values as they cross the channel, seen from the harness.

What a test passes to the submission becomes the wire's plain values (``sandbox.protocol``:
arrays that remember whether they were JAX's or numpy's, handles, functions as source,
abstract shapes); what comes back becomes JAX and numpy values again, or ``RemoteHandle``s
for the objects that stayed in the sandbox. Decoding and checking the bytes themselves is the
protocol's work; this module only maps kinds.
"""

from __future__ import annotations

from typing import Any

import jax
import numpy as np

from grader.portable_function import PortableFunction
from grader.remote_handle import RemoteHandle, SendRequest
from sandbox import protocol


class WideJaxArray:
    """A JAX array the submission returned with a 64-bit dtype this harness cannot hold."""

    def __init__(self, array: np.ndarray) -> None:
        self.array = array
        self.shape, self.dtype = array.shape, array.dtype

    def __repr__(self) -> str:
        return f"jax.Array({self.array!r}) with 64-bit dtype {self.dtype}"


def to_wire(value: Any) -> Any:
    """A test's argument as the wire carries it; containers are rebuilt, other values go as they are."""
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
        return type(value)(to_wire(item) for item in value)
    if type(value) is dict:
        return {key: to_wire(item) for key, item in value.items()}
    return value


def from_wire(value: Any, request: SendRequest) -> Any:
    """A decoded reply value as tests use it; a handle in it reaches the sandbox through ``request``."""
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
        return RemoteHandle(request, value)
    if isinstance(value, protocol.ShapeDtype):
        if not all(type(n) is int for n in value.shape):
            return value  # symbolic dimensions stay names
        dtype = protocol.EXTENDED_DTYPES.get(value.dtype, np.dtype(value.dtype))
        if value.abstract:  # a ShapedArray stays one: it is not the ShapeDtypeStruct it resembles
            return jax.core.ShapedArray(tuple(int(n) for n in value.shape), dtype)
        return jax.ShapeDtypeStruct(value.shape, dtype)
    if isinstance(value, list):
        return [from_wire(item, request) for item in value]
    if isinstance(value, tuple):
        return tuple(from_wire(item, request) for item in value)
    if isinstance(value, dict):
        return {key: from_wire(item, request) for key, item in value.items()}
    return value
