"""A Python for loop over range(n): right for a Python int, but range() cannot take a traced n."""
# expect: runtime_error
# pitfall: A Python loop.

import jax.numpy as jnp


def loop_sum_squares(x, n):
    total = jnp.zeros_like(x)
    for i in range(n):
        total = total + (x * i) ** 2
    return total
