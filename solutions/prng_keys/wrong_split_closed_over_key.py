"""Splits the caller's key again inside the scan body at every step: the body closes over that one key, so
every step splits it into the same two keys and draws the same noise.

`key, sub = jax.random.split(key)` reads like advancing a stream, but the body is traced once and the key it
splits is the same value at every step.
"""
# expect: wrong_answer
# pitfall: Splitting the same key again at every step

import functools

import jax


@functools.partial(jax.jit, static_argnames="steps")
def simulate(key, x0, steps, rho, sigma):
    def step(x, _):
        step_key, noise_key = jax.random.split(key)
        noise = jax.random.normal(noise_key, x.shape, x.dtype)
        x = rho * x + sigma * noise
        return x, x

    _, xs = jax.lax.scan(step, x0, None, length=steps)
    return xs, jax.random.split(key)[0]
