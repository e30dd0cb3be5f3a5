"""Reference solution: a lax.fori_loop over i < n, accumulating (x * i) ** 2 in x's dtype."""

import jax.numpy as jnp
from jax import lax


def loop_sum_squares(x, n):
    def add_term(i, total):
        return total + (x * i) ** 2

    return lax.fori_loop(0, n, add_term, jnp.zeros_like(x))
