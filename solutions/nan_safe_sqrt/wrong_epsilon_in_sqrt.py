"""Adds a small epsilon under the square root instead of selecting: the norm of an all-zero row
becomes sqrt(1e-12) = 1e-6 instead of 0, and in float16 the epsilon rounds to 0, so its
gradients are NaN again."""
# expect: wrong_answer
# pitfall: An epsilon under the square root.

import jax.numpy as jnp


def safe_norm(x):
    return jnp.sqrt(jnp.sum(x * x, axis=-1) + 1e-12)
