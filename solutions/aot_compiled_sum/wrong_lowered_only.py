"""Lowers but never compiles: a Lowered object cannot be called."""
# expect: runtime_error
# pitfall: `lower` is not enough.

import jax
import jax.numpy as jnp


def aot_compiled_sum(x):
    return jax.jit(jnp.sum).lower(x)(x)
