"""Adds the partial sums with a psum, then psums the total again divided by the device count to
make sure it is replicated: the right numbers, but two all-reduces where one would do."""
# expect: wrong_answer
# pitfall: Several psums.

from functools import partial

import jax
import jax.numpy as jnp
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P

MESH = jax.make_mesh((8,), ("rows",))


@jax.jit
@partial(jax.shard_map, mesh=MESH, in_specs=P("rows", None), out_specs=P(), check_vma=False)
def _add_partial_sums(block):
    total = jax.lax.psum(jnp.sum(block, axis=0), "rows")
    return jax.lax.psum(total / 8, "rows")


def sharded_column_sums(x):
    return _add_partial_sums(jax.device_put(x, NamedSharding(MESH, P("rows", None))))
