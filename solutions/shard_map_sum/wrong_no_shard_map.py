"""Splits x by rows but sums it with a plain jitted jnp.sum: XLA adds the all-reduce itself,
with no shard_map and no psum written by hand."""
# expect: wrong_answer
# pitfall: Letting `jit` do it.

import jax
import jax.numpy as jnp
from jax.sharding import NamedSharding, PartitionSpec


def sharded_column_sums(x):
    mesh = jax.make_mesh((8,), ("rows",))
    split = jax.device_put(x, NamedSharding(mesh, PartitionSpec("rows", None)))
    return jax.jit(lambda a: jnp.sum(a, axis=0))(split)
