"""Draws each step's noise with the first half of the split, the same key it carries on to the next step: the
key returned at the end already drew the last step's noise.

The steps' noises differ from one another, but the caller who draws with the returned key gets the noise of
the last step once more.
"""
# expect: wrong_answer
# pitfall: Drawing with the key you pass on

import functools

import jax


def noisy_update(key, x, rho, sigma):
    key, noise_key = jax.random.split(key)
    noise = jax.random.normal(key, x.shape, x.dtype)
    return key, rho * x + sigma * noise


@functools.partial(jax.jit, static_argnames="steps")
def simulate(key, x0, steps, rho, sigma):
    def step(carry, _):
        x, key = carry
        key, x = noisy_update(key, x, rho, sigma)
        return (x, key), x

    (_, key), xs = jax.lax.scan(step, (x0, key), None, length=steps)
    return xs, key
