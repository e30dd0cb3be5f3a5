"""Replaces the while_loop by a Python for loop: right values and gradients, but jit unrolls it
into steps copies of the update, so the program grows with steps."""
# expect: wrong_answer
# pitfall: A Python `for` loop.

import functools

import jax
import jax.numpy as jnp


@functools.partial(jax.jit, static_argnums=2)
def simulate(x0, rate, steps):
    x = x0
    for _ in range(steps):
        x = x - rate * jnp.tanh(x)
    return x
