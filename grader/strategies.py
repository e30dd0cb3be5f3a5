"""Hypothesis strategies for JAX inputs: arrays across shapes and dtypes, small jnp programs."""

from __future__ import annotations

import contextlib
import functools
import random
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Literal

import jax
import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from grader.portable_function import PortableFunction
from sandbox import protocol

# Dtypes JAX holds natively with 64-bit mode off (the default, as on the sandbox side),
# bfloat16 included: the most used dtype in machine learning.
DEFAULT_DTYPES = ("float32", "float16", "bfloat16", "int32", "int16", "int8", "uint8", "uint32", "bool")
FLOAT_DTYPES = ("float32", "float16", "bfloat16")
INT_DTYPES = ("int32", "int16", "int8", "uint8", "uint32")

# Element bounds keep sums and products of a few dozen elements finite in every dtype (and,
# for the 16-bit floats, their rounding errors small).
_FLOAT_BOUNDS = {"float16": 8.0, "bfloat16": 8.0, "float32": 1000.0}


def _dtype(name: str) -> np.dtype[Any]:
    return protocol.EXTENDED_DTYPES.get(name) or np.dtype(name)


def _array_strategy(dtype: np.dtype[Any], shapes: st.SearchStrategy[tuple[int, ...]]) -> st.SearchStrategy[Any]:
    extended = protocol.extended_dtype_name(dtype)
    if extended is None:
        return hnp.arrays(dtype, shapes, elements=_elements(dtype))
    # hypothesis cannot draw ml_dtypes arrays: draw float32 values within the bounds, then round
    # them to the dtype (every example is exactly representable in it).
    bound = _FLOAT_BOUNDS.get(extended, 8.0)
    elements = st.floats(-bound, bound, allow_nan=False, allow_subnormal=False, width=32)
    return hnp.arrays(np.float32, shapes, elements=elements).map(lambda array: array.astype(dtype))


def _elements(dtype: np.dtype[Any]) -> st.SearchStrategy[Any]:
    if dtype.kind == "f":
        bound = _FLOAT_BOUNDS.get(dtype.name, 1000.0)
        width: Literal[16, 32, 64] = 16 if dtype.itemsize == 2 else 32 if dtype.itemsize == 4 else 64
        return st.floats(-bound, bound, allow_nan=False, allow_infinity=False, allow_subnormal=False, width=width)
    return hnp.from_dtype(dtype)


# Every distinct shape and dtype a test meets is an XLA compile in the sandbox, which costs far
# more than running on new values. So a property draws its shapes from a few per test, picked
# anew for every submission (the harness seeds the pick as it seeds hypothesis), always with the
# edges: 0-d where allowed, an empty one, all ones, a prime length and a long one. Compiles then
# repeat while the values vary, and a submission cannot know the lengths beforehand.
#
# Hypothesis draws which of them each example gets, so a short run can miss one: the harness
# asks ``shapes_not_met`` after the test and runs it again on each missed shape
# (``meeting_only``), so that every test meets every edge of its pools.
PoolKey = tuple[int, int, int, int]  # min_dims, max_dims, min_side, max_side
_shape_pick_seed = 0
_met: dict[PoolKey, set[int]] = {}
_only: dict[PoolKey, int] = {}


def pick_shapes_with(seed: int) -> None:
    """Seed the shapes ``arrays`` picks for the test about to run (the harness calls this)."""
    global _shape_pick_seed
    _shape_pick_seed = seed
    _met.clear()
    _only.clear()


def shapes_not_met() -> list[dict[PoolKey, int]]:
    """The runs still owed to the current test: in each, the pool shape each pool must give.

    One run per shape a pool has not given yet (pools with fewer missing shapes are free in
    the later runs); empty when the test met every shape of every pool it drew from.
    """
    missing = {
        key: [index for index in range(len(shape_pool(*key, _shape_pick_seed))) if index not in met]
        for key, met in _met.items()
    }
    rounds = max(map(len, missing.values()), default=0)
    return [{key: left[turn] for key, left in missing.items() if turn < len(left)} for turn in range(rounds)]


@contextlib.contextmanager
def meeting_only(shapes: dict[PoolKey, int]) -> Iterator[None]:
    """Within: each pool named gives only its shape of that index (see ``shapes_not_met``)."""
    _only.update(shapes)
    try:
        yield
    finally:
        _only.clear()


def _primes_in(low: int, high: int) -> list[int]:
    return [n for n in range(max(2, low), high + 1) if all(n % d for d in range(2, int(n**0.5) + 1))]


@functools.lru_cache(maxsize=1024)
def shape_pool(min_dims: int, max_dims: int, min_side: int, max_side: int, seed: int) -> list[tuple[int, ...]]:
    """The few shapes a property meets for one seed, simplest first (where shrinking goes).

    The edges always: ``()`` where 0-d is allowed; an empty shape where a side may be 0; the
    shape of ones; one with a prime side; one with a long side (the top quarter of the range).
    The empty one is empty along its first axis. ``seed`` picks how many axes each has, which
    axis has the edge's side, the prime and the long side, and the other sides (any nonzero
    side of the range, so that axes differ).
    """
    rng = random.Random(f"{seed}:{min_dims}:{max_dims}:{min_side}:{max_side}")
    axes_range = range(max(1, min_dims), max_dims + 1)
    pool: list[tuple[int, ...]] = [()] if min_dims == 0 else []
    if not axes_range:
        return pool
    nonzero = range(max(min_side, 1), max_side + 1) or range(max_side, max_side + 1)

    def with_side(side: int) -> tuple[int, ...]:
        shape = [rng.choice(nonzero) for _ in range(rng.choice(axes_range))]
        shape[rng.randrange(len(shape))] = side
        return tuple(shape)

    if min_side == 0:  # empty along its first axis (no rows, no batch), and maybe others
        empty = [0, *(rng.choice([0, *nonzero]) for _ in range(rng.choice(axes_range) - 1))]
        pool.append(tuple(empty))
    if min_side <= 1 <= max_side:
        pool.append((1,) * rng.choice(axes_range))
    primes = _primes_in(min_side, max_side)
    if primes:
        pool.append(with_side(rng.choice(primes)))
    long_sides = range(max(min_side, (3 * max_side + 3) // 4), max_side + 1)
    if long_sides:
        pool.append(with_side(rng.choice(long_sides)))
    # Fewest axes first, then fewest elements: the order hypothesis tries and shrinks towards,
    # as with its own array_shapes, so the simplest failing input is the one reported.
    return sorted(set(pool), key=lambda shape: (len(shape), int(np.prod(shape)), shape))


@st.composite
def _pooled_shapes(draw: st.DrawFn, min_dims: int, max_dims: int, min_side: int, max_side: int) -> tuple[int, ...]:
    key = (min_dims, max_dims, min_side, max_side)
    pool = shape_pool(*key, _shape_pick_seed)
    index = _only[key] if key in _only else draw(st.integers(0, len(pool) - 1))
    _met.setdefault(key, set()).add(index)
    return pool[index]


def arrays(
    *,
    dtypes: tuple[str, ...] = DEFAULT_DTYPES,
    min_dims: int = 1,
    max_dims: int = 1,
    min_side: int = 1,
    max_side: int = 32,
    shape: tuple[int, ...] | None = None,
) -> st.SearchStrategy[jax.Array]:
    """JAX arrays of the given dtypes and shapes, with finite elements.

    Shapes have ``min_dims`` to ``max_dims`` axes of ``min_side`` to ``max_side``
    elements (the few of ``shape_pool`` for the test), unless ``shape`` fixes one.
    """
    shapes = st.just(shape) if shape is not None else _pooled_shapes(min_dims, max_dims, min_side, max_side)
    # One strategy per dtype, built once: cheaper per example than building one per draw.
    per_dtype = [_array_strategy(_dtype(name), shapes) for name in dtypes]
    return st.one_of(per_dtype).map(jax.device_put)


def shapes_other_than(shape: tuple[int, ...], *, max_side: int = 32) -> st.SearchStrategy[tuple[int, ...]]:
    """Shapes of up to three axes that differ from ``shape``."""
    return hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=max_side).filter(lambda s: s != shape)


def dtypes_other_than(dtype: Any, *, choices: tuple[str, ...] = DEFAULT_DTYPES) -> st.SearchStrategy[str]:
    return st.sampled_from([name for name in choices if _dtype(name) != np.dtype(dtype)])


# The pool jnp programs are built from: a template applied to the current value (and, for
# binary steps, the second argument).
UNARY_STEPS = (
    "jnp.sin({x})",
    "jnp.cos({x})",
    "jnp.exp({x})",
    "jnp.tanh({x})",
    "jnp.negative({x})",
    "jnp.abs({x})",
    "jnp.sqrt(jnp.abs({x}))",
    "{x} * 2.0",
    "{x} + 1.0",
    "jnp.sum({x})",
    "jnp.max({x})",
    "jnp.cumsum({x})",
    "jnp.log1p(jnp.abs({x}))",
)
BINARY_STEPS = (
    "{x} + {y}",
    "{x} - {y}",
    "{x} * {y}",
    "jnp.maximum({x}, {y})",
    "jnp.where({x} > {y}, {x}, {y})",
)


@dataclass(frozen=True)
class JnpProgram:
    """A small function built from jnp operations, with arguments to trace it on."""

    function: PortableFunction
    args: tuple[jax.Array, ...]

    def __repr__(self) -> str:
        shapes = ", ".join(f"{a.dtype}{list(a.shape)}" for a in self.args)
        return f"JnpProgram(\n{self.function.source}  # called on {shapes}\n)"


@st.composite
def jnp_programs(draw: st.DrawFn, *, min_steps: int = 1, max_steps: int = 5, mixed_shapes: bool = False) -> JnpProgram:
    """Functions of one or two float32 vectors, chaining ``min_steps`` to ``max_steps`` jnp
    operations. With ``mixed_shapes``, the second argument may also be a 0-d array or a
    vector of one element (broadcast against the first)."""
    arity = draw(st.integers(1, 2))
    names = ["x", "y"][:arity]
    lines = [f"def f({', '.join(names)}):"]
    current = "x"
    for step in range(draw(st.integers(min_steps, max_steps))):
        if arity == 2 and draw(st.booleans()):
            template = draw(st.sampled_from(BINARY_STEPS))
        else:
            template = draw(st.sampled_from(UNARY_STEPS))
        lines.append(f"    v{step} = {template.format(x=current, y='y')}")
        current = f"v{step}"
    lines.append(f"    return {current}")
    size = draw(st.integers(1, 8))
    element = st.floats(-3, 3, allow_nan=False, allow_subnormal=False, width=32)
    shapes = [(size,), draw(st.sampled_from([(size,), (), (1,)]) if mixed_shapes else st.just((size,)))]
    args = tuple(jax.device_put(draw(hnp.arrays(np.float32, shape, elements=element))) for shape in shapes[:arity])
    return JnpProgram(PortableFunction("\n".join(lines) + "\n"), args)
