"""Reference solution: a helper jitted once at module level with n static, whose Python loop multiplies n times.

A Python for loop runs while jit traces, so it needs a concrete n; marking n static with static_argnums makes
it part of the cache key instead of a traced value, and the loop unrolls into n multiplications in the
program. Each distinct n is traced and compiled once, and later calls with the same n and the same shape and
dtype reuse that executable. The helper is jitted once, at module level, so its cache survives between calls;
jitting inside static_power would build a new function, with an empty cache, on every call. The loop starts
from jnp.ones_like(x), so n = 0 gives ones and the result keeps x's shape and dtype.
"""

from functools import partial

import jax
import jax.numpy as jnp


@partial(jax.jit, static_argnums=1)
def _power(x, n):
    result = jnp.ones_like(x)
    for _ in range(n):
        result = result * x
    return result


def static_power(x, n):
    return _power(x, n)
