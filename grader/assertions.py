"""Assertions for test authors, with messages written for the student who reads them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import numpy as np

from grader.call_records import describe_signature
from grader.channel_values import WideJaxArray
from grader.proxy import SubmissionProxy
from grader.remote_handle import RemoteHandle
from grader.submission_exceptions import RaisedBySubmission
from sandbox import protocol

# (rtol, atol) by dtype; integers and booleans must match exactly.
TOLERANCES = {
    np.dtype("float16"): (1e-2, 1e-2),
    protocol.EXTENDED_DTYPES["bfloat16"]: (1.6e-2, 1e-2),  # 8 bits of precision: two units in the last place
    np.dtype("float32"): (1e-5, 1e-5),
    np.dtype("float64"): (1e-12, 1e-12),
    np.dtype("complex64"): (1e-5, 1e-5),
}


def describe(value: Any) -> str:
    """How a value reads in a message: its kind, shape and dtype."""
    if isinstance(value, RemoteHandle):
        real = "" if value.kind != "object" else " (not a JAX object)"
        return f"an object of type {value.type_name}{real}"
    if isinstance(value, WideJaxArray):
        return f"a jax.Array of shape {value.shape} and dtype {value.dtype}"
    if isinstance(value, jax.Array):
        return f"a jax.Array of shape {value.shape} and dtype {value.dtype}"
    if type(value) is np.ndarray:
        return f"a numpy.ndarray of shape {value.shape} and dtype {value.dtype}"
    if isinstance(value, np.generic):
        return f"a NumPy scalar of type numpy.{type(value).__name__}"
    return f"a {type(value).__name__} ({value!r:.80})"


def _kind(value: Any) -> str:
    if isinstance(value, (jax.Array, WideJaxArray)):
        return "jax.Array"
    if type(value) is np.ndarray:
        return "numpy.ndarray"
    if isinstance(value, np.generic):
        return "numpy scalar"
    return type(value).__name__


def assert_same_array(
    actual: Any, expected: Any, *, rtol: float | None = None, atol: float | None = None, what: str = "your result"
) -> None:
    """Assert ``actual`` is the same kind of array as ``expected``, then equal within tolerance.

    Checked in order, each with its own message: the kind of object (a JAX array, a NumPy
    array or scalar, something else), the shape, the dtype, NaN and infinities where the
    expected value has none, and finally the values (exact for integers and booleans).
    """
    expected_kind = _kind(expected)
    if _kind(actual) != expected_kind:
        hint = (
            " (did you compute it with NumPy instead of JAX?)"
            if expected_kind == "jax.Array" and _kind(actual).startswith("numpy")
            else ""
        )
        raise AssertionError(f"{what} is {describe(actual)}, but {describe(expected)} was expected{hint}")
    if isinstance(actual, WideJaxArray):
        raise AssertionError(
            f"{what} has dtype {actual.dtype}, but {expected.dtype} was expected (is jax_enable_x64 on?)"
        )
    actual_array, expected_array = np.asarray(actual), np.asarray(expected)
    if actual_array.shape != expected_array.shape:
        raise AssertionError(f"{what} has shape {actual_array.shape}, but shape {expected_array.shape} was expected")
    if actual_array.dtype != expected_array.dtype:
        raise AssertionError(f"{what} has dtype {actual_array.dtype}, but dtype {expected_array.dtype} was expected")
    default_rtol, default_atol = TOLERANCES.get(actual_array.dtype, (0.0, 0.0))
    if protocol.extended_dtype_name(actual_array.dtype) is not None:
        # Compared in float64, which holds every value of these small types exactly.
        actual_array, expected_array = actual_array.astype(np.float64), expected_array.astype(np.float64)
    if actual_array.dtype.kind in "fc":
        bad = ~np.isfinite(actual_array) & np.isfinite(expected_array)
        if bad.any():
            index = tuple(int(i) for i in np.argwhere(bad)[0])
            raise AssertionError(f"{what} is {actual_array[index]} at index {index}, where a finite value was expected")
    rtol = default_rtol if rtol is None else rtol
    atol = default_atol if atol is None else atol
    close = np.isclose(actual_array, expected_array, rtol=rtol, atol=atol, equal_nan=True)
    if not np.all(close):
        if actual_array.ndim == 0:
            raise AssertionError(f"{what} is {actual_array.item()!r}, but {expected_array.item()!r} was expected")
        index = tuple(int(i) for i in np.argwhere(~close)[0])
        raise AssertionError(
            f"{what} differs at index {index}: {actual_array[index]!r} instead of {expected_array[index]!r} "
            f"({int((~close).sum())} of {close.size} elements differ)"
        )


def assert_same_value(actual: Any, expected: Any, *, what: str = "your result") -> None:
    """Assert plain data (lists, tuples, dicts, strings, numbers) is equal with exactly the same types."""
    if type(actual) is not type(expected):
        raise AssertionError(f"{what} is {describe(actual)}, but a {type(expected).__name__} was expected")
    if isinstance(expected, (list, tuple)):
        if len(actual) != len(expected):
            raise AssertionError(
                f"{what} has {len(actual)} items, but {len(expected)} were expected: "
                f"got {actual!r}, expected {expected!r}"
            )
        for index, (a, e) in enumerate(zip(actual, expected, strict=True)):
            try:
                assert_same_value(a, e, what=f"item {index} of {what}")
            except AssertionError as exc:
                raise AssertionError(f"{exc}\n  got      {actual!r}\n  expected {expected!r}") from None
        return
    if isinstance(expected, dict):
        if set(actual) != set(expected):
            raise AssertionError(f"{what} has keys {sorted(actual)}, but {sorted(expected)} were expected")
        for key in expected:
            assert_same_value(actual[key], expected[key], what=f"{what}[{key!r}]")
        return
    if actual != expected:
        raise AssertionError(f"{what} is {actual!r}, but {expected!r} was expected")


def assert_rejects(
    function: RemoteHandle | Callable[..., Any], error: type[Exception], *args: Any, why: str = ""
) -> None:
    """Assert that calling ``function(*args)`` in the submission raises ``error``.

    For shape-bound executables: ``assert_rejects(compiled, TypeError, wrong_shape_input)``.
    """
    try:
        function(*args)
    except error as exc:
        if not isinstance(exc, RaisedBySubmission):
            raise
        return
    shown = ", ".join(describe(arg) for arg in args)
    raise AssertionError(
        f"calling it with {shown} should raise {error.__name__}{': ' + why if why else ''}, but it returned normally"
    )


def assert_compiled_ahead_of_time(
    submission: SubmissionProxy, *, fresh: bool = True, returns_result: bool = True
) -> None:
    """Assert the last call went ``jax.jit`` → ``.lower(x)`` → ``.compile()`` → called on ``x``.

    Tied to that call's inputs, not to counts: some executable must have been compiled from a
    lowering for exactly the signature of the arrays the call received, and called on those
    very arrays (compiling or calling on a stand-in does not count). With ``fresh`` the
    lowering and the compile happened during this call; with ``returns_result`` the call
    returned what the executable returned. ``jax.jit`` may have been called when the module
    loaded.
    """
    call = submission.last_call
    wanted = call.inputs
    shown = describe_signature(wanted)
    records = call.events.stages if fresh else tuple(r for c in submission.calls for r in c.events.stages)
    lowerings = {r.id: r for r in records if r.stage == "lower"}
    compiles = {r.id: r for r in records if r.stage == "compile"}
    calls = [r for r in call.events.stages if r.stage == "call"]
    jit_calls = call.events.jit if fresh else sum(c.events.jit for c in submission.calls)
    if jit_calls + submission.load_events.jit == 0:
        raise AssertionError(f"{call.name} did not wrap the function with jax.jit")
    if not any(r.signature == wanted for r in lowerings.values()):
        seen = "; ".join(sorted({describe_signature(r.signature) for r in lowerings.values()}))
        raise AssertionError(
            f"{call.name} did not lower the function for its input ({shown}) with .lower(x)"
            + (f": it lowered only for {seen}" if seen else "")
        )
    good_compiles = {
        number for number, r in compiles.items() if r.signature == wanted and lowerings.get(r.source) is not None
    }
    if not good_compiles:
        raise AssertionError(
            f"{call.name} did not compile the computation lowered for its input ({shown}) with .compile()"
        )
    on_inputs = [r for r in calls if r.source in good_compiles and r.from_inputs and all(r.from_inputs)]
    if not on_inputs:
        raise AssertionError(
            f"{call.name} did not call the executable compiled for its input ({shown}) on that input itself"
        )
    if returns_result and not any(r.returned for r in on_inputs):
        raise AssertionError(f"{call.name} did not return what the compiled executable returned for its input")


def assert_handle_kind(value: Any, kind: str, *, what: str = "your result") -> None:
    """Assert ``value`` is a sandboxed object of ``kind`` (``compiled``, ``lowered``, ``exported``, ...).

    The kind is told in the sandbox by identity with the real JAX classes: a class of the
    submission's own that calls itself ``Compiled`` does not pass.
    """
    names = {
        "compiled": "a jax.stages.Compiled",
        "lowered": "a jax.stages.Lowered",
        "traced": "a jax.stages.Traced",
        "exported": "a jax.export.Exported",
        "jitted": "a function wrapped by jax.jit",
        "custom_jvp": "a function with a custom derivative rule (jax.custom_jvp)",
        "custom_vjp": "a function with a custom derivative rule (jax.custom_vjp)",
        "function": "a function",
    }
    if kind not in names:
        raise ValueError(f"unknown kind {kind!r}; choose one of {', '.join(names)}")
    if not isinstance(value, RemoteHandle) or value.kind != kind:
        raise AssertionError(f"{what} is {describe(value)}, but {names[kind]} was expected")
