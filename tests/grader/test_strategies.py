import jax
import jax.numpy as jnp
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from grader.strategies import (
    DEFAULT_DTYPES,
    FLOAT_DTYPES,
    arrays,
    jnp_programs,
    meeting_only,
    pick_shapes_with,
    shape_pool,
    shapes_not_met,
    shapes_other_than,
)


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


@given(
    min_dims=st.integers(0, 3),
    extra_dims=st.integers(0, 2),
    min_side=st.integers(0, 3),
    extra_side=st.integers(0, 40),
    seed=st.integers(0, 2**32),
)
def test_a_shape_pool_stays_in_bounds_and_holds_every_edge_the_bounds_allow(
    min_dims, extra_dims, min_side, extra_side, seed
):
    max_dims, max_side = min_dims + extra_dims, min_side + extra_side
    pool = shape_pool(min_dims, max_dims, min_side, max_side, seed)
    assert pool and len(pool) <= 5 and len(set(pool)) == len(pool)
    for shape in pool:
        assert min_dims <= len(shape) <= max_dims and all(min_side <= side <= max_side for side in shape)
    order = [(len(shape), int(np.prod(shape))) for shape in pool]
    assert order == sorted(order)  # shrinking heads for the fewest axes, then the fewest elements
    assert (() in pool) == (min_dims == 0)
    if max_dims > 0:
        assert any(shape and shape[0] == 0 for shape in pool) == (min_side == 0)
        if min_side <= 1 <= max_side:
            assert any(shape and set(shape) == {1} for shape in pool)
        if any(all(n % d for d in range(2, n)) for n in range(max(2, min_side), max_side + 1)):
            assert any(side > 1 and all(side % d for d in range(2, side)) for shape in pool for side in shape)
        long_side = (3 * max_side + 3) // 4
        assert any(side >= long_side for shape in pool for side in shape)


def test_shape_pools_differ_from_one_seed_to_the_next_so_no_length_can_be_counted_on():
    pools = {tuple(shape_pool(1, 1, 0, 32, seed)) for seed in range(50)}
    lengths = {shape[0] for pool in pools for shape in pool}
    assert len(pools) > 20 and len(lengths) > 12


def test_a_property_meets_only_its_pools_shapes_so_compiles_repeat():
    seen = []

    @settings(max_examples=60, derandomize=True, database=None, deadline=None)
    @given(x=arrays(min_dims=0, max_dims=3, min_side=0, max_side=5))
    def record(x):
        seen.append(x.shape)

    pick_shapes_with(1234)
    try:
        record()
    finally:
        pick_shapes_with(0)
    pool = shape_pool(0, 3, 0, 5, 1234)
    assert set(seen) == set(pool)  # every one of them, and nothing else


def test_the_shapes_a_short_run_missed_are_owed_and_then_met_one_by_one():
    seen = []

    @settings(max_examples=1, derandomize=True, database=None, deadline=None)
    @given(x=arrays(min_dims=0, max_dims=3, min_side=0, max_side=5), y=arrays(max_side=3))
    def record(x, y):
        seen.append((x.shape, y.shape))

    x_pool, y_pool = shape_pool(0, 3, 0, 5, 99), shape_pool(1, 1, 1, 3, 99)
    pick_shapes_with(99)
    try:
        record()  # one example: at most one shape of each pool
        owed = shapes_not_met()
        assert len(owed) == max(len(x_pool), len(y_pool)) - 1
        for shapes in owed:
            with meeting_only(shapes):
                record()
        assert shapes_not_met() == []
    finally:
        pick_shapes_with(0)
    assert {x for x, _ in seen} == set(x_pool) and {y for _, y in seen} == set(y_pool)
