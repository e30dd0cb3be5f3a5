"""Carries the total in x's own dtype: for a bool input, + is a logical or and the result stays bool."""
# expect: wrong_answer
# pitfall: A bool carry.

import jax.numpy as jnp
from jax import lax


def scan_cumsum(x):
    def step(total, value):
        total = total + value
        return total, total

    _, totals = lax.scan(step, jnp.zeros((), dtype=x.dtype), x)
    return totals
