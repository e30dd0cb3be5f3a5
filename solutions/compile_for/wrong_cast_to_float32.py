"""Casts the example to float32 first, so the executable has the wrong signature."""
# expect: runtime_error
# pitfall: Changing the example before lowering

import jax
import jax.numpy as jnp


def compile_for(example):
    return jax.jit(jnp.sum).lower(example.astype(jnp.float32)).compile()
