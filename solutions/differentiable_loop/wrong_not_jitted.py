"""Rewrites the loop as a lax.scan but drops the jax.jit decorator: right values and gradients,
but simulate itself is no longer one compiled program."""
# expect: wrong_answer
# pitfall: Dropping `jax.jit`.

import jax.numpy as jnp
from jax import lax


def simulate(x0, rate, steps):
    def step(x, _):
        return x - rate * jnp.tanh(x), None

    x, _ = lax.scan(step, x0, None, length=steps)
    return x
