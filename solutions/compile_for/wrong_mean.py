"""Bound to the right signature, but computes the mean."""
# expect: wrong_answer

import jax
import jax.numpy as jnp


def compile_for(example):
    return jax.jit(jnp.mean).lower(example).compile()
