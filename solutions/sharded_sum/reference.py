"""Reference solution: split x over a 1-D mesh of every device, then sum it with a jitted jnp.sum."""

import jax
import jax.numpy as jnp
from jax.sharding import NamedSharding, PartitionSpec


def sharded_sum(x):
    mesh = jax.make_mesh((len(jax.devices()),), ("d",))
    split = jax.device_put(x, NamedSharding(mesh, PartitionSpec("d")))
    return jax.jit(jnp.sum)(split)
