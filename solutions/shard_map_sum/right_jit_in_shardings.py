"""Lets jit place x: in_shardings splits the argument by rows as the call starts, and the old
jax.sharding.Mesh constructor (Auto axes) with check_vma=False, where lax.psum is a plain psum."""

import jax
import numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec


def _block_sums(block):
    return jax.lax.psum(block.sum(axis=0), ("d",))


def sharded_column_sums(x):
    mesh = Mesh(np.array(jax.devices()), ("d",))
    per_device = jax.shard_map(
        _block_sums, mesh=mesh, in_specs=PartitionSpec("d"), out_specs=PartitionSpec(), check_vma=False
    )
    return jax.jit(per_device, in_shardings=NamedSharding(mesh, PartitionSpec("d")))(x)
