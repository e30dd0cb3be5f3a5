"""Starts from jnp.zeros(x.shape), a float32 zero: float16 and bfloat16 inputs come back as float32."""
# expect: wrong_answer
# pitfall: A float32 accumulator.

import jax.numpy as jnp
from jax import lax


def loop_sum_squares(x, n):
    return lax.fori_loop(0, n, lambda i, total: total + (x * i) ** 2, jnp.zeros(x.shape))
