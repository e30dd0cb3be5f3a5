"""vmap(grad(...)) without jax.jit: the right numbers, run one operation at a time, never compiled as one program."""
# expect: wrong_answer

import jax
import jax.numpy as jnp

_slopes = jax.vmap(jax.grad(lambda t: 2 + jnp.sin(t)))


def jit_vmap_grad(x):
    return _slopes(x)
