"""Applies grad outside vmap: the vmapped function returns a vector, and grad needs a scalar output."""
# expect: runtime_error

import jax
import jax.numpy as jnp

_slopes = jax.jit(jax.grad(jax.vmap(lambda t: 2 + jnp.sin(t))))


def jit_vmap_grad(x):
    return _slopes(x)
