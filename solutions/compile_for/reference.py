"""Reference solution: jnp.sum compiled ahead of time for the example's signature."""

import jax
import jax.numpy as jnp


def compile_for(example):
    return jax.jit(jnp.sum).lower(example).compile()
