"""Guards x itself rather than its sum of squares: all-zero rows are replaced by ones before
jnp.linalg.norm, whose result for them the outer selection then discards."""

import jax.numpy as jnp


def safe_norm(x):
    zero_row = jnp.all(x == 0, axis=-1)
    safe_x = jnp.where(zero_row[..., None], 1.0, x)
    return jnp.where(zero_row, 0.0, jnp.linalg.norm(safe_x, axis=-1))
