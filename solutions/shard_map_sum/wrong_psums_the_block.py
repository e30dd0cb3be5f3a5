"""Psums the whole block and sums its rows afterwards: the right numbers with one all-reduce,
but it carries k*m numbers per device instead of the m partial sums (over the budget)."""
# expect: wrong_answer
# pitfall: A psum of the block.

from functools import partial

import jax
import jax.numpy as jnp
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P

MESH = jax.make_mesh((8,), ("rows",))


@jax.jit
@partial(jax.shard_map, mesh=MESH, in_specs=P("rows", None), out_specs=P())
def _add_blocks(block):
    return jnp.sum(jax.lax.psum(block, "rows"), axis=0)


def sharded_column_sums(x):
    return _add_blocks(jax.device_put(x, NamedSharding(MESH, P("rows", None))))
