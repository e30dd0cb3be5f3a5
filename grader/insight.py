"""The JAX insight of a grading: what JAX did with the student's code, measured in the sandbox.

- ``calls``: per call of the visible tests, the traces, lowerings and XLA compiles it caused,
  with the seconds spent compiling (XLA), staging (tracing and lowering) and the rest
  (running); of hidden tests only how many calls they made (their inputs are not the
  student's to see, nor anything the sandbox says of them).
- ``artifacts``: for the first input a visible test gave the entry point, its jaxpr, the
  StableHLO of its lowering and the compiled executable's cost analysis (FLOPs, bytes), made
  in the sandbox; for an entry point that compiles for itself, its own newest executable.
- ``reference``: the same artifacts for the reference solution, made here in the harness
  (trusted code), only once the submission is accepted.
- ``warnings``: what JAX users get wrong, said plainly, from the counts of all calls; ``notes``:
  what may be meant but is worth knowing (a compile per value of a Python number).

Everything from the sandbox is checked, capped and made printable here, once.
"""

from __future__ import annotations

import contextlib
import inspect
import math
import types
from collections import defaultdict
from collections.abc import Iterator
from typing import Any

import jax

from grader.call_records import CallRecord, JaxEvents, describe_signature, signature_of
from grader.proxy import SubmissionProxy
from grader.reference import modified
from grader.submission_exceptions import RaisedBySubmission
from sandbox import protocol
from sandbox.stages import describe_stages

INSIGHT_SCHEMA = 1
MAX_LISTED_CALLS = 40
MAX_TEXT = protocol.MAX_INSIGHT_TEXT
SOURCES = ("entry_point", "own_executable")
# XLA's names for the costs a student can read, and ours in the report.
COST_KEYS = {"flops": "flops", "transcendentals": "transcendentals", "bytes accessed": "bytes_accessed"}
# A call that traces again this many times is worth a word; a compile per value of a Python
# number is often meant (a static argument), so only many of them are.
REPEATS_WORTH_A_WARNING = 3
VALUES_WORTH_A_WARNING = 5
# Compiles of an entry point never jitted (op by op) worth a sentence for a beginner.
EAGER_PROGRAMS_WORTH_A_NOTE = 5


def sandbox_artifacts(proxy: SubmissionProxy) -> dict[str, Any] | None:
    """What JAX makes of the first visible input, made in the sandbox (the insight's one request).

    Asked before any hidden test sends the sandbox anything: afterwards, whatever the sandbox
    answers may carry what it saw of hidden inputs or of the objects hidden tests sent it
    (a jaxpr can bake in constants, an error can quote a caller's frame). None without a
    visible call.
    """
    if proxy.first_visible_call is None:
        return None
    name, args, kwargs = proxy.first_visible_call
    try:
        return artifacts_from_wire(proxy.insight(name, args, kwargs))
    except RaisedBySubmission as exc:
        return {"failed": protocol.printable(f"{exc.remote_type}: {exc}"[:1000])}


def collect(
    proxy: SubmissionProxy,
    reference: types.ModuleType | None,
    *,
    with_reference: bool,
    artifacts: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The insight of a finished grading, from the visible tests' calls and ``artifacts``
    (``sandbox_artifacts``, taken before the hidden tests).

    Of the hidden tests, only how many calls they made: the sandbox's own counts and times for
    them could carry what it saw of their inputs (a float of seconds holds many bits). The
    warnings and notes do look at hidden calls, which is where most patterns show: each is a
    fixed sentence with a count, a bit or two, no more than the outcome of a hidden test says.
    """
    calls = list(proxy.calls)
    hidden_from = proxy.hidden_from if proxy.hidden_from is not None else len(calls)
    visible = calls[:hidden_from]
    insight: dict[str, Any] = {
        "schema": INSIGHT_SCHEMA,
        "load": _timing(proxy.load_events),
        # A call in which JAX did nothing (plain Python, or a cached executable run in no time)
        # is not a row: the table is about what JAX did. How many were left out is said.
        "calls": [_call_row(call) for call in visible[:MAX_LISTED_CALLS] if _did_something(call.events)],
        "quiet_calls": sum(not _did_something(call.events) for call in visible[:MAX_LISTED_CALLS]),
        "visible_totals": _totals(visible),
        "hidden_totals": {"calls": len(calls) - len(visible)},
        "warnings": warnings_for(calls),
        "notes": notes_for(calls, parameter_names(reference), jitted_at_load=bool(proxy.load_events.jit)),
    }
    if proxy.first_visible_call is not None:
        name, args, kwargs = proxy.first_visible_call
        insight["input"] = f"{name}({describe_signature(signature_of((args, kwargs)))})"
        if artifacts is not None:
            insight["artifacts"] = artifacts
        if with_reference and reference is not None and hasattr(reference, name):
            insight["reference"] = cached_reference_artifacts(reference, name, args, kwargs)
    return insight


def _timing(events: JaxEvents) -> dict[str, Any]:
    run = max(0.0, events.seconds - events.compile_seconds - events.staging_seconds)
    return {
        "traces": events.trace_events,
        "lowerings": events.lowering_events,
        "compiles": events.backend_compile_events,
        "compile_s": round(events.compile_seconds, 4),
        "staging_s": round(events.staging_seconds, 4),
        "run_s": round(run, 4),
        "total_s": round(events.seconds, 4),
    }


def _did_something(events: JaxEvents) -> bool:
    return bool(events.trace_events or events.lowering_events or events.backend_compile_events)


def _call_row(call: CallRecord) -> dict[str, Any]:
    return {"call": call.name, "inputs": describe_signature(call.inputs), **_timing(call.events)}


def _totals(calls: list[CallRecord]) -> dict[str, Any]:
    return {"calls": len(calls), **_timing(sum((call.events for call in calls), JaxEvents()))}


def warnings_for(calls: list[CallRecord]) -> list[str]:
    """Plain words for the patterns that cost JAX users most, from what the calls caused."""
    found: list[str] = []
    for name, made in _entry_point_calls(calls).items():
        # jax.jit applied anew in every call: each jitted function starts with an empty cache.
        # (Not for code that lowers explicitly: compiling ahead of time per call is its point.)
        jitting = [call for call in made if call.events.jit and call.events.trace_events and not call.events.lower]
        if len(jitting) >= REPEATS_WORTH_A_WARNING and len(jitting) == len(made):
            found.append(
                f"{name} called jax.jit in each of its {len(made)} calls and was traced every time: "
                "create the jitted function once, outside the function (or the loop) that calls it."
            )
            continue
        # Traced again for the very inputs (shapes, dtypes and Python numbers) it had seen.
        seen: set[tuple[Any, ...]] = set()
        retraced: list[CallRecord] = []
        for call in made:
            key = (call.inputs, call.scalars)
            if call.events.trace_events and not call.events.lower and key in seen:
                retraced.append(call)
            seen.add(key)
        if len(retraced) >= REPEATS_WORTH_A_WARNING:
            found.append(
                f"{name} was traced again {len(retraced)} times for inputs it had already seen "
                f"({describe_signature(retraced[0].inputs)}): JAX's cache missed. Is a jax.jit "
                "made inside your function, or does a Python value it depends on change?"
            )
    return found


def notes_for(
    calls: list[CallRecord], parameters: dict[str, list[str]] | None = None, *, jitted_at_load: bool = False
) -> list[str]:
    """What is worth knowing but may well be meant: a function never jitted, whose operations
    each compiled on their own; a compile per value of a Python number.

    ``parameters``: the entry points' parameter names (the reference's), to name the argument
    whose values changed; without them it is told by its position. ``jitted_at_load``: the
    code called ``jax.jit`` when it loaded (a decorated function, say), so no call is "not jitted".
    """
    found: list[str] = []
    for name, made in _entry_point_calls(calls).items():
        # No jax.jit anywhere: every jnp operation ran as a program of its own.
        eager = [call for call in made if not call.events.jit and not call.events.lower]
        programs = sum(call.events.backend_compile_events for call in eager)
        if not jitted_at_load and len(eager) == len(made) and programs >= EAGER_PROGRAMS_WORTH_A_NOTE:
            found.append(
                f"{name} is not jitted: JAX ran each jnp operation on its own and compiled {programs} small "
                f"programs for it in {len(made)} calls (one per operation and input shape). Under jax.jit the "
                "whole function becomes one program per input shape, which XLA can fuse."
            )
        values = {call.scalars for call in made if call.scalars and call.events.backend_compile_events}
        if len(values) >= VALUES_WORTH_A_WARNING:
            places = sorted({where for value in values for where, _ in value}, key=lambda w: (not w.isdigit(), w))
            changing = [where for where in places if len({dict(value).get(where) for value in values}) > 1]
            names = [_argument_name((parameters or {}).get(name, []), where) for where in changing or places]
            found.append(
                f"{name} was compiled for each new value of {' and '.join(names)} "
                f"({len(values)} values): JAX specializes the program to the Python numbers it is "
                "given (a static argument). Right when they seldom change; for a value that changes "
                "often, pass it as an array and loop with jax.lax.fori_loop."
            )
    return found


def parameter_names(reference: types.ModuleType | None) -> dict[str, list[str]]:
    """The parameter names of the reference's functions (trusted code: the sandbox is not asked)."""
    names: dict[str, list[str]] = {}
    if reference is None:
        return names
    for attribute, value in vars(reference).items():
        if inspect.isfunction(value):
            with contextlib.suppress(TypeError, ValueError):
                names[attribute] = list(inspect.signature(value).parameters)
    return names


def _argument_name(parameters: list[str], where: str) -> str:
    if where.isdigit():
        position = int(where)
        return f"`{parameters[position]}`" if position < len(parameters) else f"argument {position + 1}"
    return f"`{where}`"


def _entry_point_calls(calls: list[CallRecord]) -> dict[str, list[CallRecord]]:
    by_function: dict[str, list[CallRecord]] = defaultdict(list)
    for call in calls:
        if call.name.isidentifier():  # entry points; not handles, transforms or the insight
            by_function[call.name].append(call)
    return by_function


def artifacts_from_wire(raw: Any) -> dict[str, Any]:
    """The sandbox's artifacts, checked: known keys only, texts capped and printable, costs finite."""
    if not isinstance(raw, dict):
        return {"failed": "the sandbox sent no insight"}
    clean: dict[str, Any] = {}
    source = raw.get("source")
    clean["source"] = source if source in SOURCES else "entry_point"
    for key in ("jaxpr", "stablehlo", "not_traceable", "failed"):
        value = raw.get(key)
        if isinstance(value, str):
            clean[key] = protocol.printable(value[:MAX_TEXT])
    cost = raw.get("cost")
    if isinstance(cost, dict):
        clean["cost"] = {
            COST_KEYS[key]: float(value)
            for key, value in cost.items()
            if key in COST_KEYS and type(value) in (int, float) and math.isfinite(value) and value >= 0
        }
    return clean


# The reference's artifacts by problem, entry point and input (shapes, dtypes and Python
# numbers: all that a trace depends on); a worker grades the same problems over and over.
_reference_cache: dict[tuple[Any, ...], dict[str, Any]] = {}
MAX_CACHED_REFERENCES = 256


def cached_reference_artifacts(
    reference: types.ModuleType, name: str, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> dict[str, Any]:
    """``reference_artifacts``, remembered for this process (the reference is trusted and
    deterministic: the same input always gives the same jaxpr, StableHLO and cost)."""
    leaves = jax.tree_util.tree_leaves((args, kwargs))
    path = getattr(reference, "__file__", None) or reference.__name__
    key = (
        path,
        modified(path),  # a new version of the problem's reference is described anew
        name,
        signature_of((args, kwargs)),
        tuple(repr(leaf) for leaf in leaves if type(leaf) in (bool, int, float, str)),
        jax.tree_util.tree_structure((args, kwargs)),
    )
    if key not in _reference_cache:
        if len(_reference_cache) >= MAX_CACHED_REFERENCES:
            _reference_cache.clear()
        _reference_cache[key] = reference_artifacts(getattr(reference, name), args, kwargs)
    return dict(_reference_cache[key])


def reference_artifacts(function: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any]:
    """The reference's jaxpr, StableHLO and cost for the same input, made here (trusted code)
    by the very function the sandbox describes the student's with."""

    def own_executable() -> tuple[Any, Any]:
        # It lowers and compiles for itself: watch it do so, and describe what it made.
        with _watching_stages() as made:
            function(*args, **kwargs)
        return made.get("lowered"), made.get("compiled")

    artifacts = artifacts_from_wire(describe_stages(jax.jit, function, args, kwargs, own_executable))
    artifacts.pop("not_traceable", None)  # the student's panel explains it; the reference's need not
    return artifacts


@contextlib.contextmanager
def _watching_stages() -> Iterator[dict[str, Any]]:
    """Keep the newest ``Lowered`` and ``Compiled`` made while the block runs (this thread's
    trusted reference code only: the harness grades one submission at a time)."""
    stages = jax.stages
    original_lower, original_compile = stages.Traced.lower, stages.Lowered.compile
    made: dict[str, Any] = {}

    def lower(traced: Any, *args: Any, **kwargs: Any) -> Any:
        made["lowered"] = original_lower(traced, *args, **kwargs)
        return made["lowered"]

    def compile(lowered: Any, *args: Any, **kwargs: Any) -> Any:
        made["compiled"] = original_compile(lowered, *args, **kwargs)
        made["lowered"] = lowered
        return made["compiled"]

    setattr(stages.Traced, "lower", lower)  # noqa: B010 - replaced for the block only
    setattr(stages.Lowered, "compile", compile)  # noqa: B010
    try:
        yield made
    finally:
        setattr(stages.Traced, "lower", original_lower)  # noqa: B010
        setattr(stages.Lowered, "compile", original_compile)  # noqa: B010
