"""Uses an empty PartitionSpec: every device holds the whole vector (replicated), none is split."""
# expect: wrong_answer
# pitfall: An empty `PartitionSpec()`.

import jax
import jax.numpy as jnp
from jax.sharding import NamedSharding, PartitionSpec


def sharded_sum(x):
    mesh = jax.make_mesh((4,), ("d",))
    copies = jax.device_put(x, NamedSharding(mesh, PartitionSpec()))
    return jax.jit(jnp.sum)(copies)
