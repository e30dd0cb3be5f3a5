"""Loops with lax.fori_loop on a traced n: one program for every n, not the unrolled multiplications asked for."""
# expect: wrong_answer

import jax
import jax.numpy as jnp
from jax import lax


@jax.jit
def _power(x, n):
    return lax.fori_loop(0, n, lambda i, result: result * x, jnp.ones_like(x))


def static_power(x, n):
    return _power(x, n)
