"""Draws the noise with NumPy's random generator inside the jitted function: it runs once, while jax traces,
and its numbers become constants of the compiled program, whatever key is passed.

The Python loop unrolls, so each step gets its own constant and the steps differ, but two calls with different
keys add exactly the same noise.
"""
# expect: wrong_answer
# pitfall: NumPy's or Python's random generator inside `jax.jit`

import functools

import jax
import jax.numpy as jnp
import numpy as np

rng = np.random.default_rng()


@functools.partial(jax.jit, static_argnames="steps")
def simulate(key, x0, steps, rho, sigma):
    x, xs = x0, []
    for _ in range(steps):
        noise = jnp.asarray(rng.standard_normal(x0.shape), x0.dtype)
        x = rho * x + sigma * noise
        xs.append(x)
    stacked = jnp.stack(xs) if xs else jnp.zeros((0, *x0.shape), x0.dtype)
    return stacked, jax.random.split(key)[0]
