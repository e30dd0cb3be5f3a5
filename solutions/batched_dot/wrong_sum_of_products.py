"""Sums the elementwise products: right for floats, but jnp.sum widens int8 and int16 to int32, and there is no dot."""
# expect: wrong_answer
# pitfall: Summing products.

import jax.numpy as jnp


def batched_dot(a, b):
    return jnp.sum(a * b, axis=1)
