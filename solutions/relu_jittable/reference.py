"""Reference solution: one elementwise jnp.maximum against a zero of the input's own dtype."""

import jax.numpy as jnp


def relu_jittable(x):
    return jnp.maximum(x, jnp.zeros((), dtype=x.dtype))
