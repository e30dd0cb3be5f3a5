"""Feedback a JAX learner reads: which property failed, on which input, written as they write it.

A failing test is told in three parts, none of them pytest's or hypothesis's own words:
- the property, in one sentence: the test's docstring, or else its name read as a sentence
  (``test_sums_every_shape`` → "Sums every shape.");
- the input of the submission's last call in that test, as JAX code (``x = jnp.array([0.],
  dtype=jnp.float32)``), or its type and shape where the values would not fit on a line
  (``x: float32[1031]``); hypothesis replays the smallest failing example last, so this is it;
- what went wrong (the assertion's own message, or what the code raised).
"""

from __future__ import annotations

import inspect
import re
import types
from collections.abc import Callable
from typing import Any

import numpy as np

# Arrays with more elements than this are shown by their type and shape only.
MAX_LITERAL_ELEMENTS = 12
MAX_LITERAL_CHARS = 400  # twelve float64 values at full precision fit
MAX_INPUT_LINES = 8


def property_sentence(function: Callable[..., Any] | None, name: str) -> str:
    """The property a test checks, as one sentence."""
    doc = inspect.getdoc(function) if function is not None else None
    if doc:
        first = doc.strip().split("\n\n")[0].replace("\n", " ").strip()
        return first if first.endswith((".", "?", "!")) else first + "."
    words = re.sub(r"\[.*\]$", "", name).removeprefix("test_").replace("_", " ").strip()
    return (words[:1].upper() + words[1:] + ".") if words else name


def dtype_name(dtype: Any) -> str:
    return str(np.dtype(dtype)) if not isinstance(dtype, str) else dtype


def type_and_shape(value: Any) -> str:
    """``float32[3,4]``, as jaxprs write an array's type (``float32[]`` for a 0-d array)."""
    shape = ",".join(str(int(n)) for n in value.shape)
    return f"{dtype_name(value.dtype)}[{shape}]"


def jax_literal(value: Any) -> str | None:
    """``value`` as a JAX user writes it, or None where it would not fit on a line."""
    if isinstance(value, (bool, int, float, complex, str, type(None))):
        text = repr(value)
        return text if len(text) <= MAX_LITERAL_CHARS else None
    if isinstance(value, np.generic):
        return f"jnp.{dtype_name(value.dtype)}({value.item()!r})"
    if hasattr(value, "shape") and hasattr(value, "dtype"):
        array = np.asarray(value)
        if array.size > MAX_LITERAL_ELEMENTS:
            return None
        dtype = dtype_name(array.dtype)
        if array.size == 0:  # "[]" would lose the shape of an empty (0, 3) array
            return f"jnp.zeros({tuple(array.shape)}, dtype=jnp.{dtype})"
        # "unique": the shortest digits that read back as the same value of this dtype.
        options: dict[str, Any] = {"separator": ", ", "threshold": MAX_LITERAL_ELEMENTS, "floatmode": "unique"}
        if dtype == "bfloat16":  # NumPy cannot print it: through float64, at bfloat16's precision
            array = array.astype(np.float64)
            options["formatter"] = {"float_kind": lambda x: _shortest(x, array.dtype.type, np.dtype(value.dtype))}
        digits = re.sub(r"\b(nan|inf)\b", r"jnp.\1", np.array2string(array, **options))
        text = re.sub(r"\s+", " ", f"jnp.array({digits}, dtype=jnp.{dtype})").replace("[ ", "[").replace(" ]", "]")
        return text if len(text) <= MAX_LITERAL_CHARS else None
    if isinstance(value, (list, tuple)):
        items = [jax_literal(item) for item in value]
        if any(item is None for item in items):
            return None
        inner = ", ".join(item for item in items if item is not None)
        text = f"[{inner}]" if isinstance(value, list) else f"({inner}{',' if len(items) == 1 else ''})"
        return text if len(text) <= MAX_LITERAL_CHARS else None
    return None


def _shortest(x: float, wide: type, narrow: np.dtype[Any]) -> str:
    """The fewest significant digits that give back ``x`` once rounded to the ``narrow`` dtype."""
    if not np.isfinite(x):
        return repr(float(x))
    target = np.array(x).astype(narrow)
    for digits in range(1, 18):
        text = f"{x:.{digits}g}"
        if np.array(float(text)).astype(narrow) == target:
            return text if any(c in text for c in ".en") else text + "."
    return repr(float(x))


def describe_input(value: Any) -> str:
    """A value too big to write out: its type and shape, or its kind."""
    if hasattr(value, "shape") and hasattr(value, "dtype"):
        return type_and_shape(value)
    if isinstance(value, (list, tuple)):
        return f"a {type(value).__name__} of {len(value)} items"
    return f"a {type(value).__name__}"


def parameter_names(function: Callable[..., Any] | None, count: int) -> list[str]:
    """The names of the first ``count`` positional parameters (``arg0``... where unknown)."""
    names: list[str] = []
    if function is not None:
        try:
            parameters = inspect.signature(function).parameters.values()
            names = [p.name for p in parameters if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        except (TypeError, ValueError):
            names = []
    return [names[i] if i < len(names) else f"arg{i}" for i in range(count)]


def failing_input(
    entry_point: str, args: tuple[Any, ...], kwargs: dict[str, Any], reference: types.ModuleType | None
) -> str:
    """The call as code: ``aot_compiled_sum(x)`` with ``x = jnp.array(...)`` under it."""
    function = getattr(reference, entry_point, None) if reference is not None else None
    names = parameter_names(function, len(args))
    bound = [*zip(names, args, strict=True), *kwargs.items()]
    call = f"{entry_point}({', '.join([*names, *(f'{k}={k}' for k in kwargs)])})"
    lines = [call]
    for name, value in bound[:MAX_INPUT_LINES]:
        literal = jax_literal(value)
        lines.append(f"  {name} = {literal}" if literal is not None else f"  {name}: {describe_input(value)}")
    if len(bound) > MAX_INPUT_LINES:
        lines.append(f"  ... and {len(bound) - MAX_INPUT_LINES} more")
    return "\n".join(lines)
