"""Works out the angle step pi / (2N) in Python before the block: the table is right for every N from 1 up,
but an axis of length 0 raises ZeroDivisionError where an empty result was asked for.

The rest is as it should be: the angles are computed in float32 inside jax.ensure_compile_time_eval and the
table is rounded to x's dtype before the block ends. Only the Python division fails, because 2 * 0 is 0.
"""
# expect: runtime_error by test_an_axis_of_length_zero
# pitfall: Dividing by `2 * n` in Python

import math

import jax
import jax.numpy as jnp


def cosine_transform(x):
    n = x.shape[-1]
    step = math.pi / (2 * n)  # a Python float: fails for n == 0
    with jax.ensure_compile_time_eval():
        i = jnp.arange(n, dtype=jnp.float32)
        table = jnp.cos(step * jnp.outer(2 * i + 1, i)).astype(x.dtype)
    return x @ table
