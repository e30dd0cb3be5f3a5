"""Casts every x to float32 to have fewer signatures to trace: results of other dtypes change dtype (and values)."""
# expect: wrong_answer

import jax
import jax.numpy as jnp


def jit_once(f, xs):
    jitted = jax.jit(f)
    return [jitted(jnp.asarray(x, dtype=jnp.float32)) for x in xs]
