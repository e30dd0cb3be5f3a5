"""Emits the total before adding the element: an exclusive cumsum, shifted by one."""
# expect: wrong_answer
# pitfall: Emitting the old carry.

import jax.numpy as jnp
from jax import lax


def scan_cumsum(x):
    dtype = jnp.int32 if x.dtype == jnp.bool_ else x.dtype

    def step(total, value):
        return total + value.astype(dtype), total

    _, totals = lax.scan(step, jnp.zeros((), dtype=dtype), x)
    return totals
