"""The truths hidden tests compute by a cheaper route than the one the statement describes hold
on the pinned JAX: the cheap route must give what the expensive one gives."""

import types

import jax
from hypothesis import given, settings
from hypothesis import strategies as st

from grader.problem import load_problem


def hidden_tests(slug: str) -> types.ModuleType:
    """A problem's hidden tests as a module (not a file: ``remembered`` keeps nothing)."""
    module = types.ModuleType(f"hidden_{slug}")
    exec(compile(load_problem(slug).hidden_tests, f"<hidden tests of {slug}>", "exec"), module.__dict__)
    return module


RETRACES = hidden_tests("predict_retraces")


def traces_when_called(calls: list[str]) -> int:
    """What the statement says is counted: traces of one jitted function called on each argument."""
    traces = []

    def f(x: object) -> object:
        traces.append(1)
        return x

    jitted = jax.jit(f)
    for call in calls:
        jitted(RETRACES.argument(call))
    return len(traces)


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.sampled_from(RETRACES.ARRAYS + RETRACES.PYTHON_SCALARS), min_size=1, max_size=6, unique=True).flatmap(
        lambda pool: st.lists(st.sampled_from(pool), max_size=10)
    )
)
def test_predict_retraces_counts_by_tracing_what_calls_would_trace(calls: list[str]) -> None:
    assert RETRACES.really_traces(calls) == traces_when_called(calls)


def test_predict_retraces_tells_weak_python_scalars_from_0d_arrays() -> None:
    # The cases the problem is about, each known: a Python float is weakly typed, a float32[] is not.
    assert RETRACES.really_traces(["1.0", "-2.5"]) == 1
    assert RETRACES.really_traces(["1.0", "float32[]", "float32[]"]) == 2
    assert RETRACES.really_traces(["float32[3]", "float32[2,3]", "int32[3]", "float32[3]"]) == 3
