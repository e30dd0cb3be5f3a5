"""Returns the per-device column sums without a psum: check_vma=False silences shard_map's
complaint, and out_specs=P() then hands back one device's partial sums as if they were the total."""
# expect: wrong_answer
# pitfall: Forgetting the `psum`.

from functools import partial

import jax
import jax.numpy as jnp
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P

MESH = jax.make_mesh((8,), ("rows",))


@jax.jit
@partial(jax.shard_map, mesh=MESH, in_specs=P("rows", None), out_specs=P(), check_vma=False)
def _block_sums(block):
    return jnp.sum(block, axis=0)


def sharded_column_sums(x):
    return _block_sums(jax.device_put(x, NamedSharding(MESH, P("rows", None))))
