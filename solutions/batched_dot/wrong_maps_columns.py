"""Maps over axis 1 instead of the rows: one dot per column, shape (d,) instead of (n,)."""
# expect: wrong_answer
# pitfall: Mapping the wrong axis.

import jax
import jax.numpy as jnp


def batched_dot(a, b):
    return jax.vmap(jnp.dot, in_axes=1)(a, b)
