"""Builds jit(vmap(grad(...))) inside the function: a new function every call, so every call traces again."""
# expect: wrong_answer

import jax
import jax.numpy as jnp


def jit_vmap_grad(x):
    return jax.jit(jax.vmap(jax.grad(lambda t: 2 + jnp.sin(t))))(x)
