"""Differentiates at a float32 copy of x: float16 and bfloat16 inputs get float32 results."""
# expect: wrong_answer
# pitfall: Computing in float32.

import jax
import jax.numpy as jnp


def value_and_grad_of(f, x):
    return jax.value_and_grad(f)(x.astype(jnp.float32))
