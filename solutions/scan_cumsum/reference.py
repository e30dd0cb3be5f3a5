"""Reference solution: lax.scan over x with a running total as the carry, each step emitting the new total.

jax.lax.scan(step, init, xs) threads a carry through a function applied to each element of xs in order and
stacks what each step emits, with the loop body traced once, so it compiles to a single loop whatever the
length, and an empty x simply gives an empty result. Emitting the total after adding x[i], not before, makes
output i the sum of x[0] to x[i], which is the cumulative sum. The carry is a 0-d zero of the result's dtype,
and each element is cast to it before adding: a bool x must sum as int32 as jnp.cumsum does, and a scan's
carry must keep one type across every step. Starting from zero rather than from x[0] also keeps the empty
array valid.
"""

import jax.numpy as jnp
from jax import lax


def scan_cumsum(x):
    dtype = jnp.int32 if x.dtype == jnp.bool_ else x.dtype

    def step(total, value):
        total = total + value.astype(dtype)
        return total, total

    _, totals = lax.scan(step, jnp.zeros((), dtype=dtype), x)
    return totals
