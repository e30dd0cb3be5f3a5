"""Jits the loop without marking n static: range() cannot take the traced n."""
# expect: runtime_error
# pitfall: `n` not static.

import jax
import jax.numpy as jnp


@jax.jit
def _power(x, n):
    result = jnp.ones_like(x)
    for _ in range(n):
        result = result * x
    return result


def static_power(x, n):
    return _power(x, n)
