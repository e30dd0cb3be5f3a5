"""What each request to the sandbox leaves behind: what was called, on what, and what JAX did.

The sandbox's runtime counts JAX's work around every request (API calls, ``jax.monitoring``
events, steps through the ahead-of-time stages with the signatures they were for); the counts
come back with the reply and are read here field by field, since they come out of the sandbox:
anything malformed is dropped or zero, never believed. The harness adds what it knows itself
(the signature of the arrays it sent), so that a test can check a path was taken *for the
input it gave*.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

import jax
import numpy as np

from grader.portable_function import PortableFunction
from grader.remote_handle import RemoteHandle

# Durations the sandbox reports are believed up to this many seconds (far above any limit),
# so that no sum of them can overflow to infinity.
MAX_REPORTED_SECONDS = 1e6

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


def plain_numbers(args: Any, kwargs: Any) -> tuple[tuple[str, str], ...]:
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


def _is_dimension(value: Any) -> bool:
    """A recorded dimension: a size, or the name of a symbolic dimension of an export."""
    return (type(value) is int and 0 <= value < 2**40) or (type(value) is str and 0 < len(value) <= 64)


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
