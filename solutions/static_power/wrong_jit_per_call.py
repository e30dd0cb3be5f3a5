"""Jits a new functools.partial on every call: each one has an empty cache, so every call traces and compiles again."""
# expect: wrong_answer
# pitfall: Jitting inside the function.

from functools import partial

import jax
import jax.numpy as jnp


def _power(x, n):
    result = jnp.ones_like(x)
    for _ in range(n):
        result = result * x
    return result


def static_power(x, n):
    return jax.jit(partial(_power, n=n))(x)
