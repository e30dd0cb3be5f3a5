"""Answers to real problems that forge the JAX path a test checks, or pass for a real
executable by name: each must fail, and the reference still passes after it."""

from __future__ import annotations

import pytest

from grader.problem import load_problem
from grader.verdicts import Verdict
from tests.grader.adversarial.canary import TAMPERED, WA, grade

pytestmark = pytest.mark.slow  # each submission graded in a sandbox of its own or from a pool

# Answers to aot_compiled_sum whose value or type must not pass for a jax.Array sum, or that
# claim the jit → lower → compile → call path without taking it for the input they were given.
AOT_CASES: dict[str, tuple[str, Verdict]] = {
    "compiles_a_dummy_then_sums_plainly": (
        """
        import jax, jax.numpy as jnp
        DUMMY = jnp.zeros(3)
        def aot_compiled_sum(x):
            jax.jit(jnp.sum).lower(DUMMY).compile()(DUMMY)
            return jnp.sum(x)
        """,
        WA,
    ),
    "compiles_for_x_but_calls_a_stand_in": (
        """
        import jax, jax.numpy as jnp
        def aot_compiled_sum(x):
            compiled = jax.jit(jnp.sum).lower(x).compile()
            compiled(jnp.zeros_like(x))
            return jnp.sum(x)
        """,
        WA,
    ),
    "calls_the_executable_then_returns_something_else": (
        """
        import jax, jax.numpy as jnp
        def aot_compiled_sum(x):
            jax.jit(jnp.sum).lower(x).compile()(x)
            return jnp.sum(x)
        """,
        WA,
    ),
    "stage_wrappers_called_on_junk": (
        """
        import jax, jax.numpy as jnp
        from jax import stages
        def aot_compiled_sum(x):
            jax.jit(lambda v: v)
            for method in (stages.Traced.lower, stages.Lowered.compile, stages.Compiled.__call__):
                try:
                    method(object(), x)
                except Exception:
                    pass
            return jnp.sum(x)
        """,
        WA,
    ),
    "monitoring_events_emitted_by_hand": (
        """
        import jax, jax.numpy as jnp
        def aot_compiled_sum(x):
            for event in ("jaxpr_trace_duration", "jaxpr_to_mlir_module_duration", "backend_compile_duration"):
                jax.monitoring.record_event_duration_secs("/jax/core/compile/" + event, 0.01)
            return jax.jit(jnp.sum).lower(x).compile()(x)
        """,
        TAMPERED,
    ),
    "runtime_method_replaced": (
        """
        import sys, jax, jax.numpy as jnp
        runtime = sys.modules["sandbox.inside.runtime"]
        runtime.Runtime.tampering = lambda self: []
        def aot_compiled_sum(x):
            return jnp.sum(x)
        """,
        TAMPERED,
    ),
    "stage_hook_replaced": (
        """
        import jax, jax.numpy as jnp
        from jax import stages
        original = stages.Compiled.__call__
        stages.Compiled.__call__ = lambda self, *a, **k: original(self, *a, **k)
        def aot_compiled_sum(x):
            return jax.jit(jnp.sum).lower(x).compile()(x)
        """,
        TAMPERED,
    ),
    "listener_removed": (
        """
        import jax, jax.numpy as jnp
        from jax._src import monitoring
        monitoring.clear_event_listeners()
        def aot_compiled_sum(x):
            return jax.jit(jnp.sum).lower(x).compile()(x)
        """,
        TAMPERED,
    ),
    "record_written_through_gc": (
        """
        import gc, jax, jax.numpy as jnp
        def aot_compiled_sum(x):
            for obj in gc.get_objects():
                first = obj[0] if type(obj) is list and obj else None
                if type(first) is tuple and len(first) > 1 and first[1] in ("jit", "event", "lower"):
                    signature = [[list(x.shape), str(x.dtype)]]
                    n = len(obj)
                    obj.append((n, "lower", -1, signature))
                    obj.append((n + 1, "compile", n, signature))
                    obj.append((n + 2, "call", n + 1, signature, [True]))
            return jnp.sum(x)
        """,
        TAMPERED,
    ),
    "hook_closure_rewired": (
        """
        import jax, jax.numpy as jnp
        from jax import stages
        def aot_compiled_sum(x):
            for cell in stages.Traced.lower.__closure__ or ():
                if callable(cell.cell_contents) and getattr(cell.cell_contents, "__name__", "") == "lower":
                    cell.cell_contents = cell.cell_contents
            hook = stages.Lowered.compile
            for cell in hook.__closure__ or ():
                if getattr(cell.cell_contents, "__name__", "") == "compile":
                    cell.cell_contents = lambda lowered, *a, **k: None
            return jnp.sum(x)
        """,
        TAMPERED,
    ),
    "ndarray_subclass": (
        """
        import jax, jax.numpy as jnp, numpy as np
        class Sneaky(np.ndarray):
            def __eq__(self, other):
                return True
        def aot_compiled_sum(x):
            value = jax.jit(jnp.sum).lower(x).compile()(x)
            return np.asarray(value).view(Sneaky)
        """,
        WA,
    ),
    "nan_result": (
        """
        import jax, jax.numpy as jnp
        def aot_compiled_sum(x):
            return jax.jit(lambda v: jnp.sum(v) * jnp.nan).lower(x).compile()(x)
        """,
        WA,
    ),
    "enable_x64": (
        """
        import jax, jax.numpy as jnp
        jax.config.update("jax_enable_x64", True)
        def aot_compiled_sum(x):
            x = x.astype(jnp.float64)
            return jax.jit(jnp.sum).lower(x).compile()(x)
        """,
        WA,
    ),
    "disable_jit": (
        """
        import jax, jax.numpy as jnp
        jax.config.update("jax_disable_jit", True)
        def aot_compiled_sum(x):
            return jax.jit(jnp.sum)(x)
        """,
        WA,
    ),
}

# Answers to compile_for that are not real executables, however they name themselves.
COMPILE_FOR_CASES: dict[str, tuple[str, Verdict]] = {
    "class_named_compiled": (
        """
        import jax.numpy as jnp
        class Compiled:
            def __init__(self, example):
                self.shape, self.dtype = example.shape, example.dtype
            def __call__(self, x):
                if x.shape != self.shape or x.dtype != self.dtype:
                    raise TypeError("wrong signature")
                return jnp.sum(x)
        Compiled.__module__ = "jax._src.stages"
        Compiled.__qualname__ = "Compiled"
        def compile_for(example):
            return Compiled(example)
        """,
        WA,
    ),
    "subclass_of_compiled": (
        """
        import jax, jax.numpy as jnp
        from jax import stages
        class Fake(stages.Compiled):
            __slots__ = ()
        def compile_for(example):
            real = jax.jit(jnp.sum).lower(example).compile()
            real.__class__ = Fake
            return real
        """,
        WA,
    ),
}


@pytest.mark.parametrize("name", sorted(AOT_CASES))
def test_hostile_answer_to_aot_compiled_sum(name, pool):
    code, verdict = AOT_CASES[name]
    problem = load_problem("aot_compiled_sum")
    report = grade(problem, code, pool)
    assert report.verdict == verdict, report.summary()
    assert report.score < report.max_score
    assert grade(problem, problem.reference_solution.read_text(), pool).verdict == Verdict.ACCEPTED


@pytest.mark.parametrize("name", sorted(COMPILE_FOR_CASES))
def test_hostile_answer_to_compile_for(name):
    code, verdict = COMPILE_FOR_CASES[name]
    problem = load_problem("compile_for")
    report = grade(problem, code)
    assert report.verdict == verdict, report.summary()
    assert report.score < report.max_score
    assert "jax.stages.Compiled was expected" in report.to_json()


def test_syntax_errors_are_reported_without_a_sandbox():
    report = grade(load_problem("aot_compiled_sum"), "def aot_compiled_sum(x)\n    return x\n")
    assert report.verdict == Verdict.SYNTAX_ERROR
    assert "line 1" in report.message
    assert report.sandbox == {}
