"""A right way: one key for the loop and one for the caller, split once; step t draws with fold_in(loop key, t).

fold_in(key, t) gives a different key for every step index t, and depends on nothing but the key
and t, so no carry of keys is needed: the scan runs over the step indices. The key handed back to
the caller is the other half of the first split, which the loop never touches.
"""

import functools

import jax
import jax.numpy as jnp


@functools.partial(jax.jit, static_argnames="steps")
def simulate(key, x0, steps, rho, sigma):
    next_key, loop_key = jax.random.split(key)

    def step(x, t):
        noise = jax.random.normal(jax.random.fold_in(loop_key, t), x.shape, x.dtype)
        x = rho * x + sigma * noise
        return x, x

    _, xs = jax.lax.scan(step, x0, jnp.arange(steps))
    return xs, next_key
