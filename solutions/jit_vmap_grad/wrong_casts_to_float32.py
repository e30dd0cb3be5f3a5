"""Casts x to float32 first: float16 and bfloat16 inputs get float32 slopes back."""
# expect: wrong_answer

import jax
import jax.numpy as jnp

_slopes = jax.jit(jax.vmap(jax.grad(lambda t: 2 + jnp.sin(t))))


def jit_vmap_grad(x):
    return _slopes(x.astype(jnp.float32))
