import jax
import jax.numpy as jnp
import numpy as np
from hypothesis import given, settings

from grader.strategies import DEFAULT_DTYPES, FLOAT_DTYPES, arrays, jnp_programs, shapes_other_than


@settings(max_examples=40, derandomize=True, database=None, deadline=None)
@given(x=arrays(max_dims=3, max_side=6))
def test_arrays_are_finite_jax_arrays_in_bounds(x):
    assert isinstance(x, jax.Array)
    assert 1 <= x.ndim <= 3 and all(1 <= side <= 6 for side in x.shape)
    if x.dtype.kind == "f":
        assert np.isfinite(np.asarray(x)).all()


@settings(max_examples=20, derandomize=True, database=None, deadline=None)
@given(program=jnp_programs())
def test_programs_trace_and_carry_their_source(program):
    closed = jax.make_jaxpr(program.function)(*program.args)
    assert closed.jaxpr.eqns
    assert program.function.source.startswith("def f(")


@settings(max_examples=30, derandomize=True, database=None, deadline=None)
@given(shape=shapes_other_than((2, 3)))
def test_other_shapes_differ(shape):
    assert shape != (2, 3)


def test_derandomized_runs_draw_the_same_examples():
    def draws():
        seen = []

        @settings(max_examples=10, derandomize=True, database=None, deadline=None)
        @given(x=arrays())
        def record(x):
            seen.append((str(x.dtype), x.shape, np.asarray(x).tobytes()))

        record()
        return seen

    assert draws() == draws()


def test_arrays_include_bfloat16_with_exactly_representable_values():
    seen = []

    @settings(max_examples=30, database=None, derandomize=True)
    @given(x=arrays(dtypes=("bfloat16",), max_side=8))
    def check(x):
        seen.append(x)
        assert x.dtype == jnp.bfloat16
        assert np.all(np.isfinite(np.asarray(x, dtype=np.float32)))

    check()
    assert len(seen) == 30
    assert "bfloat16" in DEFAULT_DTYPES and "bfloat16" in FLOAT_DTYPES
