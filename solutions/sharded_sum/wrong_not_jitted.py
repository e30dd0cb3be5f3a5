"""Splits x correctly but sums it with a plain jnp.sum, not a jitted function."""
# expect: wrong_answer
# pitfall: Summing outside `jax.jit`

import jax
import jax.numpy as jnp
from jax.sharding import NamedSharding, PartitionSpec


def sharded_sum(x):
    mesh = jax.make_mesh((4,), ("d",))
    return jnp.sum(jax.device_put(x, NamedSharding(mesh, PartitionSpec("d"))))
