"""Silences the error with lax.stop_gradient on x0 and rate before the while_loop: jax.grad no
longer raises, but every gradient is zero."""
# expect: wrong_answer
# pitfall: Silencing the error with `lax.stop_gradient`.

import functools

import jax
import jax.numpy as jnp
from jax import lax


@functools.partial(jax.jit, static_argnums=2)
def simulate(x0, rate, steps):
    x0, rate = lax.stop_gradient(x0), lax.stop_gradient(rate)

    def keep_going(state):
        i, _ = state
        return i < steps

    def step(state):
        i, x = state
        return i + 1, x - rate * jnp.tanh(x)

    _, x = lax.while_loop(keep_going, step, (0, x0))
    return x
