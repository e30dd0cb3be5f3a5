"""Splits x, but inside the jitted function gathers it back onto every device before summing."""
# expect: wrong_answer
# pitfall: Summing outside `jax.jit`

import jax
import jax.numpy as jnp
from jax.sharding import NamedSharding, PartitionSpec


def sharded_sum(x):
    mesh = jax.make_mesh((4,), ("d",))
    split = jax.device_put(x, NamedSharding(mesh, PartitionSpec("d")))
    whole = NamedSharding(mesh, PartitionSpec())
    return jax.jit(lambda v: jnp.sum(jax.lax.with_sharding_constraint(v, whole)))(split)
