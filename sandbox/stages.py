"""What JAX makes of a function for one input, as plain data: computed alike on both sides.

The sandbox describes the student's entry point with ``describe_stages`` (the insight's
request), the harness the reference's, so that the two read the same. It is pure: given
``jax.jit``, a function and its arguments, it returns texts and numbers, capped.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from sandbox import protocol

COST_KEYS = ("flops", "transcendentals", "bytes accessed")


def describe_stages(
    jit: Callable[..., Any],
    function: Callable[..., Any],
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    own_executable: Callable[[], tuple[Any, Any]],
) -> dict[str, Any]:
    """What JAX makes of ``function`` for one input, as plain data: its jaxpr, the StableHLO of
    its lowering and its executable's cost analysis (XLA's names). Python numbers are traced as
    static (a power ``n``, say). A function that cannot be traced whole (it lowers and compiles
    for itself) is told by what ``own_executable()`` gives: the ``(Lowered, Compiled)`` its own
    code made when called once more. Texts are capped; failures are reported, never raised.
    The sandbox describes the student's entry point with it, the harness the reference's.
    """
    cap = protocol.MAX_INSIGHT_TEXT
    found: dict[str, Any] = {"source": "entry_point"}
    lowered: Any = None
    compiled: Any = None
    static = tuple(i for i, arg in enumerate(args) if type(arg) in (bool, int, float))
    constants = {k: v for k, v in kwargs.items() if type(v) in (bool, int, float)}
    arrays = {k: v for k, v in kwargs.items() if k not in constants}
    bound = functools.partial(function, **constants) if constants else function
    try:
        # Traced once: the jaxpr, then the lowering of that very trace.
        traced = jit(bound, static_argnums=static).trace(*args, **arrays)
        found["jaxpr"] = str(traced.jaxpr)[:cap]
        lowered = traced.lower()
    except Exception as exc:
        found["source"] = "own_executable"
        found["not_traceable"] = f"{type(exc).__name__}: {exc}"[:1000]
        lowered, compiled = own_executable()
    try:
        if lowered is not None:
            found["stablehlo"] = str(lowered.as_text())[:cap]
            if compiled is None:
                compiled = lowered.compile()
        if compiled is not None:
            found["cost"] = _cost_numbers(compiled.cost_analysis())
    except Exception as exc:
        found["failed"] = f"{type(exc).__name__}: {exc}"[:1000]
    return found


def _cost_numbers(analysis: Any) -> dict[str, float]:
    """The few numbers of XLA's cost analysis a student can read (one dict, or one per device)."""
    first = analysis[0] if isinstance(analysis, (list, tuple)) and analysis else analysis
    if not isinstance(first, dict):
        return {}
    return {key: float(first[key]) for key in COST_KEYS if isinstance(first.get(key), (int, float))}
