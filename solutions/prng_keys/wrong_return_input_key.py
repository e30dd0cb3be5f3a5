"""Threads the split keys through the scan correctly but returns the key the caller passed in: the caller who
goes on with it draws this run's noise all over again.

Every step's noise is fresh and a function of the key; only the key handed back is used up.
"""
# expect: wrong_answer
# pitfall: Returning a used key

import functools

import jax


@functools.partial(jax.jit, static_argnames="steps")
def simulate(key, x0, steps, rho, sigma):
    def step(carry, _):
        x, step_key = carry
        step_key, noise_key = jax.random.split(step_key)
        x = rho * x + sigma * jax.random.normal(noise_key, x.shape, x.dtype)
        return (x, step_key), x

    _, xs = jax.lax.scan(step, (x0, key), None, length=steps)
    return xs, key
