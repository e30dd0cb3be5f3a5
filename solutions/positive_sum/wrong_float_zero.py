"""Masks with the float 0.0: the sum of an integer array comes back as float32."""
# expect: wrong_answer
# pitfall: The wrong dtype.

import jax.numpy as jnp


def positive_sum(x):
    return jnp.sum(jnp.where(x > 0, x, 0.0))
