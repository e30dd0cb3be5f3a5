"""Compares with the float 0.0: integer inputs come back as float32 instead of keeping their dtype."""
# expect: wrong_answer
# pitfall: Changing the dtype.

import jax.numpy as jnp


def relu_jittable(x):
    return jnp.maximum(x, 0.0)
