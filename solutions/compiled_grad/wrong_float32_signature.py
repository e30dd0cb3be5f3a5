"""Lowers for a float32 copy of x: the executable is for another signature and refuses float16 and bfloat16."""
# expect: wrong_answer

import jax
import jax.numpy as jnp


def compiled_grad(f, x):
    return jax.jit(jax.grad(f)).lower(x.astype(jnp.float32)).compile()
