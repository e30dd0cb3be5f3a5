"""Keeps both selections but hands the square root a stand-in of 0 for an all-zero row: sqrt's
slope there is infinite, but the outer selection drops that branch's tangent in forward mode,
and in reverse mode the inner selection sends the NaN to its constant, never to x."""

import jax.numpy as jnp


def safe_norm(x):
    s = jnp.sum(x * x, axis=-1)
    nonzero = s > 0
    return jnp.where(nonzero, jnp.sqrt(jnp.where(nonzero, s, 0.0)), 0.0)
