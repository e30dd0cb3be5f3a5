"""Splits a copy of x but then sums the original, unsplit x."""
# expect: wrong_answer
# pitfall: Splitting a copy and summing the original.

import jax
import jax.numpy as jnp
from jax.sharding import NamedSharding, PartitionSpec


def sharded_sum(x):
    mesh = jax.make_mesh((4,), ("d",))
    split = jax.device_put(x, NamedSharding(mesh, PartitionSpec("d")))  # noqa: F841 - never used
    return jax.jit(jnp.sum)(x)
