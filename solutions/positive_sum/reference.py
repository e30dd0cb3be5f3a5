"""Reference solution: mask the non-positive entries with a zero of x's dtype, then jnp.sum."""

import jax.numpy as jnp


def positive_sum(x):
    return jnp.sum(jnp.where(x > 0, x, jnp.zeros((), dtype=x.dtype)))
