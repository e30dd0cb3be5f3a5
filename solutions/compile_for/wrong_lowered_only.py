"""Stops after lowering: the caller gets a Lowered, which cannot run."""
# expect: runtime_error

import jax
import jax.numpy as jnp


def compile_for(example):
    return jax.jit(jnp.sum).lower(example)
