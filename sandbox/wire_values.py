"""What a value on the wire may be, beside plain JSON: which arrays, and the tagged objects.

Arrays cross only with a dtype of plain numbers (bool, integers, floats, complex) or one of
the ``ml_dtypes`` types JAX computes with (``EXTENDED_DTYPES``, which travel as the bits of the
unsigned integer type of their size); a dict's keys are strings, numbers, ``None`` and short
tuples of them. The frozen dataclasses are what the tags of ``sandbox.protocol`` decode to: an
array with the kind of object it was (``ArrayValue``), a shape without values
(``ShapeDtype``), an object kept in the sandbox (``HandleRef``) and a function sent into it as
source (``FunctionSource``). Like the protocol, this runs on both sides: standard library,
numpy and ml_dtypes only.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import ml_dtypes
import numpy as np

MAX_KEY_ITEMS = 32  # items of a tuple used as a dict key
# Bool, signed and unsigned integers, floats and complex numbers: never objects,
# strings, void or structured dtypes.
ALLOWED_DTYPE_KINDS = frozenset("biufc")
ARRAY_ORIGINS = frozenset({"jax", "numpy", "numpy-scalar"})
# The ml_dtypes types JAX computes with, by name: they cross as the bits of the unsigned
# integer type of their size (ml_dtypes is a dependency of JAX, so both sides have it).
EXTENDED_DTYPES: dict[str, np.dtype[Any]] = {
    name: np.dtype(getattr(ml_dtypes, name))
    for name in (
        "bfloat16",
        "float4_e2m1fn",
        "float8_e3m4",
        "float8_e4m3",
        "float8_e4m3b11fnuz",
        "float8_e4m3fn",
        "float8_e4m3fnuz",
        "float8_e5m2",
        "float8_e5m2fnuz",
        "float8_e8m0fnu",
        "int1",
        "int2",
        "int4",
        "uint1",
        "uint2",
        "uint4",
    )
    if hasattr(ml_dtypes, name)
}


def extended_dtype_name(dtype: np.dtype[Any]) -> str | None:
    """The name of ``dtype`` among ``EXTENDED_DTYPES``, or None."""
    for name, extended in EXTENDED_DTYPES.items():
        if dtype == extended:
            return name
    return None


def can_cross(dtype: np.dtype[Any]) -> bool:
    """Whether arrays of ``dtype`` may cross the channel."""
    return extended_dtype_name(dtype) is not None or (
        dtype.kind in ALLOWED_DTYPE_KINDS and dtype.fields is None and dtype.subdtype is None
    )


def is_plain_dtype_name(name: str) -> bool:
    """Whether ``name`` is exactly the name of a NumPy dtype that may cross (``float32``, not ``f4``)."""
    if len(name) > 32 or not name.isidentifier():
        return False
    try:
        dtype = np.dtype(name)
    except TypeError:
        return False
    return can_cross(dtype) and dtype.name == name


def is_key(key: Any) -> bool:
    """Whether ``key`` may be a key of a dict crossing the channel."""
    if key is None or type(key) in (str, int, bool):
        return True
    if type(key) is float:
        return math.isfinite(key)
    return type(key) is tuple and len(key) <= MAX_KEY_ITEMS and all(is_key(item) for item in key)


@dataclass(frozen=True)
class ArrayValue:
    """An array that crossed the channel, with the kind of object it was on the other side."""

    array: np.ndarray
    origin: str


@dataclass(frozen=True)
class HandleRef:
    """An object that stays inside the sandbox; the harness refers to it by id."""

    id: int
    type_name: str
    callable: bool
    kind: str = "object"


@dataclass(frozen=True)
class ShapeDtype:
    """The shape and dtype of an array without its values: a ``jax.ShapeDtypeStruct``, or with
    ``abstract`` a JAX abstract value (``ShapedArray``, what ``in_avals`` and ``out_avals`` hold),
    which is another type and must not pass for one.

    A dimension is an integer, or a string for a symbolic dimension of an export (``"n"``).
    """

    shape: tuple[int | str, ...]
    dtype: str
    abstract: bool = False


@dataclass(frozen=True)
class FunctionSource:
    """A function sent into the sandbox as source code: ``name`` is defined by ``source``."""

    source: str
    name: str
