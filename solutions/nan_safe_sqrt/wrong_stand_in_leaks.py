"""Guards the square root's input with a stand-in of 1 but drops the outer where: gradients are
finite, yet the stand-in's square root is returned, so an all-zero row's norm is 1."""
# expect: wrong_answer

import jax.numpy as jnp


def safe_norm(x):
    s = jnp.sum(x * x, axis=-1)
    return jnp.sqrt(jnp.where(s > 0, s, 1.0))
