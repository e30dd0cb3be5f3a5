"""Computes the ranks on the device with jnp.unique and a fixed size: right values under jit and
vmap, but no host function is called, so its jaxpr has no pure_callback."""
# expect: wrong_answer
# pitfall: Rewriting it with `jnp`.

import jax.numpy as jnp


def dense_rank(x):
    _, inverse = jnp.unique(x, return_inverse=True, size=x.size)
    return inverse.reshape(x.shape).astype(jnp.int32)
