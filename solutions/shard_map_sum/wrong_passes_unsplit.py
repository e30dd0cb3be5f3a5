"""Hands x to the jitted shard_map as it arrives, on one device, without placing it by rows on the mesh first."""
# expect: runtime_error by test_column_sums_of_a_16_by_3_matrix
# pitfall: Passing the unsplit `x`.

from functools import partial

import jax
import jax.numpy as jnp
from jax.sharding import PartitionSpec

MESH = jax.make_mesh((len(jax.devices()),), ("rows",))


@jax.jit
@partial(jax.shard_map, mesh=MESH, in_specs=PartitionSpec("rows", None), out_specs=PartitionSpec())
def _add_partial_sums(block):
    return jax.lax.psum(jnp.sum(block, axis=0), "rows")


def sharded_column_sums(x):
    # x is on a single device; the shard_map is expected to split it by itself.
    return _add_partial_sums(x)
