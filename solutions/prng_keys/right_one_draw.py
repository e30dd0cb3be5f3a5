"""A right way: draw the noise of every step at once, of shape (steps, *x0.shape), and scan over its rows.

One key drawn once gives independent values in every element, rows included, so step t takes row
t. The key returned to the caller is the other half of the split, never drawn with.
"""

import functools

import jax


@functools.partial(jax.jit, static_argnames="steps")
def simulate(key, x0, steps, rho, sigma):
    next_key, noise_key = jax.random.split(key)
    noises = jax.random.normal(noise_key, (steps, *x0.shape), x0.dtype)

    def step(x, noise):
        x = rho * x + sigma * noise
        return x, x

    _, xs = jax.lax.scan(step, x0, noises)
    return xs, next_key
