"""Returns jnp.cos(x): the derivative worked out by hand, with no jit, vmap or grad at all."""
# expect: wrong_answer

import jax.numpy as jnp


def jit_vmap_grad(x):
    return jnp.cos(x)
