"""Folds a Python counter of calls into the key, so that repeated calls do not repeat their noise: the result
then depends on how often simulate ran before, and the same key no longer gives the same numbers.

The step keys are derived right (fold_in of the step index); the counter is the mistake.
"""
# expect: wrong_answer
# pitfall: Folding in something other than the step

import functools

import jax
import jax.numpy as jnp

calls = 0


@functools.partial(jax.jit, static_argnames="steps")
def _simulate(key, x0, steps, rho, sigma, call):
    next_key, loop_key = jax.random.split(jax.random.fold_in(key, call))

    def step(x, t):
        noise = jax.random.normal(jax.random.fold_in(loop_key, t), x.shape, x.dtype)
        x = rho * x + sigma * noise
        return x, x

    _, xs = jax.lax.scan(step, x0, jnp.arange(steps))
    return xs, next_key


def simulate(key, x0, steps, rho, sigma):
    global calls
    calls += 1
    return _simulate(key, x0, steps, rho, sigma, calls)
