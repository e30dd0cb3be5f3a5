"""Reference solution: the double where. The outer selection gives 0 for an all-zero row; the
inner one hands the square root a stand-in of 1 there, so that neither sqrt's value nor its
slope is infinite anywhere, and the zero cotangent of the untaken branch stays zero."""

import jax.numpy as jnp


def safe_norm(x):
    s = jnp.sum(x * x, axis=-1)
    nonzero = s > 0
    safe_s = jnp.where(nonzero, s, 1.0)
    return jnp.where(nonzero, jnp.sqrt(safe_s), 0.0)
