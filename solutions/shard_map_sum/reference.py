"""Reference solution: x placed by rows on an 8-device mesh; shard_map sums each block, one psum adds the partials.

jax.shard_map runs a function once per device on that device's block of the input, as the in_specs say:
PartitionSpec("rows", None) gives each device a band of rows with every column. Summing a block over its rows
gives that device's partial column sums, m numbers, and jax.lax.psum over the "rows" axis adds them across the
devices with a single all-reduce, so every device ends with the total and out_specs=PartitionSpec() may return
it as one replicated array. The collective is written by hand, so the program holds exactly one all-reduce of
m numbers, not a gather of every partial nor a reduction of the whole block. The function is jitted once at
module level, and x is first put on the mesh with the matching row sharding, so that the call splits no data
itself.
"""

from functools import partial

import jax
import jax.numpy as jnp
from jax.sharding import NamedSharding, PartitionSpec

MESH = jax.make_mesh((len(jax.devices()),), ("rows",))  # the sandbox's 8 CPU devices
ROWS = NamedSharding(MESH, PartitionSpec("rows", None))


@jax.jit
@partial(jax.shard_map, mesh=MESH, in_specs=PartitionSpec("rows", None), out_specs=PartitionSpec())
def _add_partial_sums(block):
    return jax.lax.psum(jnp.sum(block, axis=0), "rows")


def sharded_column_sums(x):
    return _add_partial_sums(jax.device_put(x, ROWS))
