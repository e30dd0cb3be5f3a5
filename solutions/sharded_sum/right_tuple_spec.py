"""Names the mesh axis in a tuple, PartitionSpec(("d",)): the same split as PartitionSpec("d")."""

import jax
import jax.numpy as jnp
from jax.sharding import NamedSharding, PartitionSpec


def sharded_sum(x):
    mesh = jax.make_mesh((4,), ("d",))
    split = jax.device_put(x, NamedSharding(mesh, PartitionSpec(("d",))))
    return jax.jit(jnp.sum)(split)
