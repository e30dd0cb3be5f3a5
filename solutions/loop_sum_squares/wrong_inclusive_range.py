"""Loops over i = 1 .. n, one term too many: the (x * n) ** 2 term does not belong to the sum."""
# expect: wrong_answer
# pitfall: The wrong range.

import jax.numpy as jnp
from jax import lax


def loop_sum_squares(x, n):
    return lax.fori_loop(1, n + 1, lambda i, total: total + (x * i) ** 2, jnp.zeros_like(x))
