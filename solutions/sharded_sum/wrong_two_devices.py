"""Builds the mesh from two devices only: each holds a half, and two devices sit idle."""
# expect: wrong_answer
# pitfall: A mesh over fewer devices.

import jax
import jax.numpy as jnp
from jax.sharding import NamedSharding, PartitionSpec


def sharded_sum(x):
    mesh = jax.make_mesh((2,), ("d",), devices=jax.devices()[:2])
    halves = jax.device_put(x, NamedSharding(mesh, PartitionSpec("d")))
    return jax.jit(jnp.sum)(halves)
