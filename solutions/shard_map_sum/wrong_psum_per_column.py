"""Psums each column's partial sum on its own, m psums where one would do (XLA may merge them,
but the program asks for m reductions)."""
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
    partial_sums = jnp.sum(block, axis=0)
    return jnp.stack([jax.lax.psum(partial_sums[j], "rows") for j in range(partial_sums.shape[0])])


def sharded_column_sums(x):
    return _add_partial_sums(jax.device_put(x, NamedSharding(MESH, P("rows", None))))
