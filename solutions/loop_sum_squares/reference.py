"""Reference solution: a lax.fori_loop over i < n, accumulating (x * i) ** 2 in x's dtype.

jax.lax.fori_loop(lower, upper, body, init) runs body(i, carry) for i from lower up to, but not including,
upper, so the terms are added in the order i = 0, ..., n - 1 and n = 0 returns the initial zeros. The loop is
a primitive of its own and its body is traced once, so when n is traced, as under jax.jit, the bound is read
at run time and a new n compiles nothing new; a Python loop would need a concrete n and unroll one copy of the
body per step. The accumulator starts as jnp.zeros_like(x), so it has x's shape and dtype, and the loop keeps
that type through every iteration, as lax loops require of their carry. With a Python int as n the same call
works too, since fori_loop accepts either.
"""

import jax.numpy as jnp
from jax import lax


def loop_sum_squares(x, n):
    def add_term(i, total):
        return total + (x * i) ** 2

    return lax.fori_loop(0, n, add_term, jnp.zeros_like(x))
