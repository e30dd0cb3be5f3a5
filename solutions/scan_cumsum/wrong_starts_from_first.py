"""Starts the carry at x[0] and scans the rest: right on every non-empty input, an IndexError on length 0."""
# expect: runtime_error
# pitfall: Starting from `x[0]`.

import jax.numpy as jnp
from jax import lax


def scan_cumsum(x):
    dtype = jnp.int32 if x.dtype == jnp.bool_ else x.dtype
    first = x[0].astype(dtype)

    def step(total, value):
        total = total + value.astype(dtype)
        return total, total

    _, rest = lax.scan(step, first, x[1:])
    return jnp.concatenate([first[None], rest])
