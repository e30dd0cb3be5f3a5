"""Sums each block along the wrong array axis (axis=1, the row sums) before the psum: it
returns k numbers, the row sums of the blocks added up, instead of the m column sums."""
# expect: wrong_answer

from functools import partial

import jax
import jax.numpy as jnp
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P

MESH = jax.make_mesh((8,), ("rows",))


@jax.jit
@partial(jax.shard_map, mesh=MESH, in_specs=P("rows", None), out_specs=P())
def _add_partial_sums(block):
    return jax.lax.psum(jnp.sum(block, axis=1), "rows")


def sharded_column_sums(x):
    return _add_partial_sums(jax.device_put(x, NamedSharding(MESH, P("rows", None))))
