"""Collects the trajectory with lax.scan, but each step emits the state it was given, so the last
entry is the state after steps - 1 updates (steps = 0 is handled apart, and right)."""
# expect: wrong_answer
# pitfall: An off-by-one.

import functools

import jax
import jax.numpy as jnp
from jax import lax


@functools.partial(jax.jit, static_argnums=2)
def simulate(x0, rate, steps):
    if steps == 0:
        return x0

    def step(x, _):
        return x - rate * jnp.tanh(x), x

    _, trajectory = lax.scan(step, x0, None, length=steps)
    return trajectory[-1]
