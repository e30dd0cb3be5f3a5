"""Sums over the first axis only: right for vectors, fails on 0-d arrays (and is wrong for matrices)."""
# expect: runtime_error

import jax
import jax.numpy as jnp


def aot_compiled_sum(x):
    executable = jax.jit(lambda v: jnp.sum(v, axis=0)).lower(x).compile()
    return executable(x)
