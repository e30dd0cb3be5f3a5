"""Clamps the sum of squares to the dtype's smallest normal number before the square root: the
gradient is finite, but an all-zero row's norm is sqrt(tiny), not 0 (about 0.008 in float16)."""
# expect: wrong_answer

import jax.numpy as jnp


def safe_norm(x):
    s = jnp.sum(x * x, axis=-1)
    return jnp.sqrt(jnp.maximum(s, jnp.finfo(x.dtype).tiny))
