"""Draws every step's noise with the one key the caller passed in: a key is a value, so each step gets the same numbers.

The caller gets a split of its key back, but inside the loop nothing ever changes the key the
draws use.
"""
# expect: wrong_answer
# pitfall: Reusing one key for every step

import functools

import jax


@functools.partial(jax.jit, static_argnames="steps")
def simulate(key, x0, steps, rho, sigma):
    next_key, loop_key = jax.random.split(key)

    def step(x, _):
        noise = jax.random.normal(loop_key, x.shape, x.dtype)
        x = rho * x + sigma * noise
        return x, x

    _, xs = jax.lax.scan(step, x0, None, length=steps)
    return xs, next_key
