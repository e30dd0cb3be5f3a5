"""Stops after lowering: the caller gets a Lowered, which cannot run."""
# expect: runtime_error
# pitfall: Returning the `Lowered` stage.

import jax
import jax.numpy as jnp


def compile_for(example):
    return jax.jit(jnp.sum).lower(example)
