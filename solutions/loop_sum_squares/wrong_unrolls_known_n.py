"""Unrolls the loop in Python whenever n is a known int: the program then grows with n."""
# expect: wrong_answer
# pitfall: Unrolling "when possible".

import jax.numpy as jnp
from jax import lax


def loop_sum_squares(x, n):
    total = jnp.zeros_like(x)
    if isinstance(n, int):
        for i in range(n):
            total = total + (x * i) ** 2
        return total
    return lax.fori_loop(0, n, lambda i, acc: acc + (x * i) ** 2, total)
