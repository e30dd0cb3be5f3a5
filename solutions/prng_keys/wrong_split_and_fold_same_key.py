"""Derives the step keys with fold_in(key, t) and the returned key with split(key) from the same key: in this
JAX split(key) is [fold_in(key, 0), fold_in(key, 1)], so the returned key is the key of step 0.

Each key derived from `key` is different from the others only if one way of deriving is used; mixing split and
fold_in on one key makes the returned key draw step 0's noise again.
"""
# expect: wrong_answer
# pitfall: Splitting and folding one key

import functools

import jax
import jax.numpy as jnp


@functools.partial(jax.jit, static_argnames="steps")
def simulate(key, x0, steps, rho, sigma):
    def step(x, t):
        noise = jax.random.normal(jax.random.fold_in(key, t), x.shape, x.dtype)
        x = rho * x + sigma * noise
        return x, x

    _, xs = jax.lax.scan(step, x0, jnp.arange(steps))
    next_key, _ = jax.random.split(key)
    return xs, next_key
