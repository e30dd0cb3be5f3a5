"""lax.fori_loop with Python int bounds, jitted with static_argnames: its trip count is known
at trace time, so JAX lowers it to a scan and reverse mode works."""

import functools

import jax
import jax.numpy as jnp
from jax import lax


@functools.partial(jax.jit, static_argnames="steps")
def simulate(x0, rate, steps):
    return lax.fori_loop(0, steps, lambda i, x: x - rate * jnp.tanh(x), x0)
