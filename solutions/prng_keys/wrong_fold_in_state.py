"""Derives each step's key by folding in a number computed from the current state (the bits of its sum): the
noise then depends on x0, not on the key and the step alone.

Each step gets a different key, but two runs from different starting points with one key draw different noise.
"""
# expect: wrong_answer

import functools

import jax
import jax.numpy as jnp


@functools.partial(jax.jit, static_argnames="steps")
def simulate(key, x0, steps, rho, sigma):
    next_key, loop_key = jax.random.split(key)

    def step(x, t):
        state_bits = jax.lax.bitcast_convert_type(jnp.sum(x, dtype=jnp.float32), jnp.uint32)
        noise_key = jax.random.fold_in(jax.random.fold_in(loop_key, t), state_bits)
        noise = jax.random.normal(noise_key, x.shape, x.dtype)
        x = rho * x + sigma * noise
        return x, x

    _, xs = jax.lax.scan(step, x0, jnp.arange(steps))
    return xs, next_key
