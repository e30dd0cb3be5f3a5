"""Gathers the eight partial sums onto every device with all_gather and adds them locally:
the right numbers, but an all-gather instead of one all-reduce (over the budget)."""
# expect: wrong_answer
# pitfall: Gathering, then adding.

from functools import partial

import jax
import jax.numpy as jnp
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P

MESH = jax.make_mesh((8,), ("rows",))


@jax.jit
@partial(jax.shard_map, mesh=MESH, in_specs=P("rows", None), out_specs=P(), check_vma=False)
def _add_partial_sums(block):
    every_partial = jax.lax.all_gather(jnp.sum(block, axis=0), "rows")
    return jnp.sum(every_partial, axis=0)


def sharded_column_sums(x):
    return _add_partial_sums(jax.device_put(x, NamedSharding(MESH, P("rows", None))))
