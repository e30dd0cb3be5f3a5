"""The JAX insight of a grading: what JAX did with the student's code, measured in the sandbox.

- ``calls``: per call of the visible tests, the traces, lowerings and XLA compiles it caused,
  with the seconds spent compiling (XLA), staging (tracing and lowering) and the rest
  (running); ``visible_totals``, the headline, is the sum of every visible call's row (see
  ``call_table``); of hidden tests only how many calls they made (their inputs are not the
  student's to see, nor anything the sandbox says of them).
- ``artifacts``: for the first input a visible test gave the entry point, its jaxpr, the
  StableHLO of its lowering and the compiled executable's cost analysis (FLOPs, bytes), made
  in the sandbox; for an entry point that compiles for itself, its own newest executable.
- ``reference``: the same artifacts for the reference solution, made here in the harness
  (trusted code), only once the submission is accepted.
- ``warnings``: what JAX users get wrong, said plainly; ``notes``: what may be meant but is
  worth knowing (a compile per value of a Python number). Both look for their pattern in all
  calls and quote the counts of the visible calls only, those the headline and table count;
  a note that would tell the student to jit what the tests jit themselves is not given.

Everything from the sandbox is checked, capped and made printable here, once.
"""

from __future__ import annotations

import contextlib
import inspect
import math
import re
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

# 2: one count for the headline, the table and the notes, all of the visible calls: ``setup_s``
# (tracing, lowering and compiling) and ``op_by_op`` per row, ``quiet_run_s``, ``more_calls``
# (the busy calls past ``MAX_LISTED_CALLS``), and notes that quote visible counts only.
INSIGHT_SCHEMA = 2
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
    warnings and notes do look at hidden calls to find a pattern, which is where most patterns
    show, but every number they quote is of the visible calls, the same the headline and the
    table count: of hidden calls a note is a fixed sentence, a bit or two, no more than the
    outcome of a hidden test says.
    """
    calls = list(proxy.calls)
    hidden_from = proxy.hidden_from if proxy.hidden_from is not None else len(calls)
    visible = calls[:hidden_from]
    jitted_at_load = bool(proxy.load_events.jit)
    insight: dict[str, Any] = {
        "schema": INSIGHT_SCHEMA,
        "load": _timing(proxy.load_events),
        **call_table([_call_row(call, jitted_at_load=jitted_at_load) for call in visible]),
        "hidden_totals": {"calls": len(calls) - len(visible)},
        "warnings": warnings_for(calls, visible=len(visible)),
        "notes": notes_for(calls, parameter_names(reference), jitted_at_load=jitted_at_load, visible=len(visible)),
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
        # What a student reads as "time compiling": tracing, lowering and XLA's compile, all
        # of what JAX spent before the program could run.
        "setup_s": round(events.compile_seconds + events.staging_seconds, 4),
        "run_s": round(run, 4),
        "total_s": round(events.seconds, 4),
    }


COUNTED = ("traces", "lowerings", "compiles")
TIMED = ("compile_s", "staging_s", "setup_s", "run_s", "total_s")


def call_table(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The visible calls' rows as the panel shows them, with the totals its headline says.

    Every figure is a sum of these very rows: the headline's (``visible_totals``) of all of
    them, the table's of those listed, of those past ``MAX_LISTED_CALLS`` (``more_calls``) and
    of the calls in which JAX did nothing (``quiet_calls``, ``quiet_run_s``). The three parts
    add up to the headline, so that they cannot disagree.
    """
    # A call in which JAX did nothing (plain Python, or a cached executable run) is not a row:
    # the table is about what JAX did. How many were left out is said, and their seconds.
    busy = [row for row in rows if any(row[key] for key in COUNTED)]
    quiet = [row for row in rows if not any(row[key] for key in COUNTED)]
    table: dict[str, Any] = {
        "calls": busy[:MAX_LISTED_CALLS],
        "quiet_calls": len(quiet),
        "quiet_run_s": _sum(quiet)["run_s"],
        "visible_totals": _sum(rows),
    }
    if len(busy) > MAX_LISTED_CALLS:
        table["more_calls"] = _sum(busy[MAX_LISTED_CALLS:])
    return table


def _sum(rows: list[dict[str, Any]]) -> dict[str, Any]:
    total: dict[str, Any] = {"calls": len(rows)}
    total.update({key: sum(row[key] for row in rows) for key in COUNTED})
    total.update({key: round(sum(row[key] for row in rows), 4) for key in TIMED})
    return total


def _call_row(call: CallRecord, *, jitted_at_load: bool = False) -> dict[str, Any]:
    # More than one program for one call outside any jax.jit: its operations compiled one by
    # one, which is why a single call can count several traces and compiles.
    transforms = transforms_of(call.name)
    op_by_op = (
        call.events.backend_compile_events > 1
        and transforms is not None
        and "jit" not in transforms
        and not jitted_at_load
        and not call.events.jit
        and not call.events.lower
    )
    return {"call": call.name, "inputs": describe_signature(call.inputs), **_timing(call.events), "op_by_op": op_by_op}


def transforms_of(label: str) -> tuple[str, ...] | None:
    """The JAX transformations the harness applied to an entry point, innermost first, read from
    a call's label (``jax.jit(jax.vmap(f))`` gives ``("vmap", "jit")``; ``f`` gives ``()``);
    None for a call of anything else (a handle, the insight). The labels are the harness's own
    (``SubmissionProxy.transformed``), never the sandbox's."""
    applied: list[str] = []
    while not label.isidentifier():
        match = _TRANSFORMED.fullmatch(label)
        if match is None:
            return None
        applied.append(match["transform"])
        label = match["inner"]
    return tuple(reversed(applied))


_TRANSFORMED = re.compile(r"jax\.(?P<transform>[a-z_]+)\((?P<inner>.+)\)")


def jitted_by_harness(calls: list[CallRecord]) -> set[str]:
    """The entry points the tests themselves put under ``jax.jit`` (``jax.jit(f)``, or a jit
    around a transformation of ``f``): whether the student's own code jits them is theirs to
    choose, and no note should nudge them to."""
    found = set()
    for call in calls:
        transforms = transforms_of(call.name)
        if transforms and "jit" in transforms:
            found.add(_entry_point_of(call.name))
    return found


def _entry_point_of(label: str) -> str:
    while (match := _TRANSFORMED.fullmatch(label)) is not None:
        label = match["inner"]
    return label


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"


def _retraced(made: list[CallRecord]) -> list[CallRecord]:
    """The calls traced again for the very inputs (shapes, dtypes and Python numbers) seen before."""
    seen: set[tuple[Any, ...]] = set()
    retraced: list[CallRecord] = []
    for call in made:
        key = (call.inputs, call.scalars)
        if call.events.trace_events and not call.events.lower and key in seen:
            retraced.append(call)
        seen.add(key)
    return retraced


def warnings_for(calls: list[CallRecord], *, visible: int | None = None) -> list[str]:
    """Plain words for the patterns that cost JAX users most, from what the calls caused.

    A pattern is looked for in all ``calls``; the numbers said are of the first ``visible``
    (the visible tests', all of them when None), which the headline and the table count too.
    """
    found: list[str] = []
    shown = _entry_point_calls(calls if visible is None else calls[:visible])
    for name, made in _entry_point_calls(calls).items():
        mine = shown.get(name, [])
        # jax.jit applied anew in every call: each jitted function starts with an empty cache.
        # (Not for code that lowers explicitly: compiling ahead of time per call is its point.)
        jitting = [call for call in made if call.events.jit and call.events.trace_events and not call.events.lower]
        if len(jitting) >= REPEATS_WORTH_A_WARNING and len(jitting) == len(made):
            where = (
                f"each of its {_plural(len(mine), 'call')} from the visible tests"
                if mine
                else "each of its calls from the hidden tests"
            )
            found.append(
                f"{name} called jax.jit in {where} and was traced every time: "
                "create the jitted function once, outside the function (or the loop) that calls it."
            )
            continue
        if len(_retraced(made)) >= REPEATS_WORTH_A_WARNING:
            again = _retraced(mine)
            told = (
                f"{_plural(len(again), 'time')} in the visible tests' calls, for inputs it had already seen "
                f"({describe_signature(again[0].inputs)})"
                if again
                else "in the hidden tests' calls, for inputs it had already seen"
            )
            found.append(
                f"{name} was traced again {told}: JAX's cache missed. Is a jax.jit "
                "made inside your function, or does a Python value it depends on change?"
            )
    return found


def notes_for(
    calls: list[CallRecord],
    parameters: dict[str, list[str]] | None = None,
    *,
    jitted_at_load: bool = False,
    visible: int | None = None,
) -> list[str]:
    """What is worth knowing but may well be meant: a function never jitted, whose operations
    each compiled on their own; a compile per value of a Python number.

    ``parameters``: the entry points' parameter names (the reference's), to name the argument
    whose values changed; without them it is told by its position. ``jitted_at_load``: the
    code called ``jax.jit`` when it loaded (a decorated function, say), so no call is "not
    jitted"; nor is a function the tests put under ``jax.jit`` themselves (``jitted_by_harness``).
    A pattern is looked for in all ``calls``; the numbers said are of the first ``visible``
    (the visible tests', all of them when None), the same calls the headline and table count.
    """
    found: list[str] = []
    jitted_by_tests = jitted_by_harness(calls)
    shown = _entry_point_calls(calls if visible is None else calls[:visible])
    for name, made in _entry_point_calls(calls).items():
        mine = shown.get(name, [])
        # No jax.jit anywhere: every jnp operation ran as a program of its own.
        eager = [call for call in made if not call.events.jit and not call.events.lower]
        programs = sum(call.events.backend_compile_events for call in eager)
        if (
            not jitted_at_load
            and name not in jitted_by_tests
            and len(eager) == len(made)
            and programs >= EAGER_PROGRAMS_WORTH_A_NOTE
        ):
            compiled = sum(call.events.backend_compile_events for call in mine)
            told = (
                f"compiled {_plural(compiled, 'small program')} for it in its "
                f"{_plural(len(mine), 'call')} from the visible tests"
                if mine
                else "compiled small programs for it in the hidden tests' calls"
            )
            found.append(
                f"{name} is not jitted: JAX ran each jnp operation on its own and {told} (one per "
                "operation and input shape). Under jax.jit the whole function becomes one program per "
                "input shape, which XLA can fuse."
            )
        values = {call.scalars for call in made if call.scalars and call.events.backend_compile_events}
        if len(values) >= VALUES_WORTH_A_WARNING:
            places = sorted({where for value in values for where, _ in value}, key=lambda w: (not w.isdigit(), w))
            changing = [where for where in places if len({dict(value).get(where) for value in values}) > 1]
            names = [_argument_name((parameters or {}).get(name, []), where) for where in changing or places]
            count = len({call.scalars for call in mine if call.scalars and call.events.backend_compile_events})
            told = f"{_plural(count, 'value')} in the visible tests' calls" if count else "in the hidden tests' calls"
            found.append(
                f"{name} was compiled for each new value of {' and '.join(names)} "
                f"({told}): JAX specializes the program to the Python numbers it is "
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
