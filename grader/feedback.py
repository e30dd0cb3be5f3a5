"""Feedback a JAX learner reads: which property failed, on which input, written as they write it.

A failing test is told in three parts, none of them pytest's or hypothesis's own words:
- the property, in one sentence: the test's docstring, or else its name read as a sentence
  (``test_sums_every_shape`` → "Sums every shape.");
- the input of the submission's last call in that test, as JAX code (``x = jnp.array([0.],
  dtype=jnp.float32)``), or its type and shape where the values would not fit on a line
  (``x: float32[1031]``); hypothesis replays the smallest failing example last, so this is it;
- what went wrong (the assertion's own message, or what the code raised).

The same input is also told by its types and shapes alone (``failing_types``: ``["x:
float32[0]"]``), which course staff count across a class; ``types_in_failing_input`` reads them
back from the code text of reports written before they were told apart.
"""

from __future__ import annotations

import ast
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


def input_type(value: Any) -> str:
    """A value's type and shape, as the class's statistics count it: ``float32[3,0]`` for an
    array, ``float32[]`` for a NumPy scalar, ``int`` for a Python number, ``list[3]`` for a
    sequence of three items."""
    if hasattr(value, "shape") and hasattr(value, "dtype"):
        return type_and_shape(value)
    if isinstance(value, (list, tuple)):
        return f"{type(value).__name__}[{len(value)}]"
    return type(value).__name__


def failing_types(
    entry_point: str, args: tuple[Any, ...], kwargs: dict[str, Any], reference: types.ModuleType | None
) -> list[str]:
    """The call's inputs by type and shape, one ``name: type`` each (``["x: float32[0]"]``), in
    the order and with the names ``failing_input`` writes them."""
    function = getattr(reference, entry_point, None) if reference is not None else None
    names = parameter_names(function, len(args))
    bound = [*zip(names, args, strict=True), *kwargs.items()]
    return [f"{name}: {input_type(value)}" for name, value in bound[:MAX_INPUT_LINES]]


# The longest line ``failing_input`` writes is a name and a literal of MAX_LITERAL_CHARS: a
# longer one was not written by it, and is not parsed.
MAX_PARSED_LINE_CHARS = MAX_LITERAL_CHARS + 100
UNKNOWN_TYPE = "unknown"


def types_in_failing_input(text: str) -> list[str]:
    """``failing_types`` read back from ``failing_input``'s text (a report of schema 2 has only
    the text): ``name: type`` for each input line, ``name: unknown`` where a line cannot be read.
    The text is untrusted: it is parsed (``ast``), never evaluated, and its lines are bounded."""
    found = []
    for line in text.splitlines()[1 : MAX_INPUT_LINES + 1]:
        line = line.strip()
        if line.startswith("... and "):
            break
        name, equals, literal = line.partition(" = ")
        if equals:
            found.append(f"{name}: {_literal_type(literal)}")
            continue
        name, colon, described = line.partition(": ")
        if colon:
            found.append(f"{name}: {_described_type(described)}")
    return found


def _described_type(described: str) -> str:
    """The type ``describe_input`` wrote: ``float32[3]``, ``a list of 3 items`` or ``a dict``."""
    described = described.strip()
    if re.fullmatch(r"[a-z0-9_]+\[[0-9,]*\]", described):
        return described
    sequence = re.fullmatch(r"an? (\w+) of (\d+) items", described)
    if sequence:
        return f"{sequence[1]}[{sequence[2]}]"
    kind = re.fullmatch(r"an? (\w+)", described)
    return kind[1] if kind else UNKNOWN_TYPE


def _literal_type(literal: str) -> str:
    """The type and shape of a literal ``jax_literal`` wrote, read without running it."""
    if len(literal) > MAX_PARSED_LINE_CHARS:
        return UNKNOWN_TYPE
    try:
        node = ast.parse(literal, mode="eval").body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return UNKNOWN_TYPE
    if isinstance(node, ast.Constant):
        return type(node.value).__name__
    if isinstance(node, ast.UnaryOp) and isinstance(node.operand, ast.Constant):  # -7, -2.5
        return type(node.operand.value).__name__
    if isinstance(node, ast.BinOp) and isinstance(node.right, ast.Constant) and isinstance(node.right.value, complex):
        return "complex"  # (1+2j)
    if isinstance(node, (ast.List, ast.Tuple)):
        return f"{'list' if isinstance(node, ast.List) else 'tuple'}[{len(node.elts)}]"
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
        return UNKNOWN_TYPE
    dtype = _jnp_name(next((k.value for k in node.keywords if k.arg == "dtype"), None))
    if node.func.attr == "zeros" and dtype and node.args and isinstance(node.args[0], ast.Tuple):
        sides = [side.value for side in node.args[0].elts if isinstance(side, ast.Constant)]
        if len(sides) == len(node.args[0].elts) and all(isinstance(side, int) for side in sides):
            return f"{dtype}[{','.join(str(side) for side in sides)}]"
    if node.func.attr == "array" and dtype and node.args:
        return f"{dtype}[{','.join(str(side) for side in _nested_shape(node.args[0]))}]"
    if node.func.attr not in ("array", "zeros") and _jnp_name(node.func) and node.args:  # jnp.float32(2.5): 0-d
        return f"{node.func.attr}[]"
    return UNKNOWN_TYPE


def _jnp_name(node: ast.expr | None) -> str | None:
    """``float32`` for ``jnp.float32``; None for anything else."""
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "jnp":
        return node.attr
    return None


def _nested_shape(node: ast.expr) -> list[int]:
    """The shape of nested list displays: ``[[1, 2], [3, 4]]`` is ``[2, 2]``, a number ``[]``."""
    shape = []
    while isinstance(node, ast.List):
        shape.append(len(node.elts))
        if not node.elts:
            break
        node = node.elts[0]
    return shape
