"""Sums the columns of the unsplit x on one device: no mesh, no shard_map, no psum."""
# expect: wrong_answer

import jax
import jax.numpy as jnp


def sharded_column_sums(x):
    return jax.jit(lambda a: jnp.sum(a, axis=0))(x)
