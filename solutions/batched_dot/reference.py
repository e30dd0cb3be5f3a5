"""Reference solution: jax.vmap maps the dot product of one pair of rows over the first axis."""

import jax
import jax.numpy as jnp


def batched_dot(a, b):
    return jax.vmap(jnp.dot)(a, b)
