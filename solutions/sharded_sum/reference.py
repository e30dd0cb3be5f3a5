"""Reference solution: x put on a 1-D mesh of all the devices, split along its only axis, then a jitted jnp.sum.

jax.device_put with a NamedSharding places the array's blocks on the devices: PartitionSpec("d") splits the
vector's only dimension along the mesh axis d, so each of the four CPU devices holds a quarter of it. jax.jit
follows the sharding of its arguments: XLA's partitioner compiles jnp.sum into a program where each device
adds its own block and a collective adds the partial sums. The jitted sum is given the split array itself,
since summing the original x would run on one device and ignore the placement. The result is the same float32
number as jnp.sum(x), up to the rounding of another order of additions.
"""

import jax
import jax.numpy as jnp
from jax.sharding import NamedSharding, PartitionSpec


def sharded_sum(x):
    mesh = jax.make_mesh((len(jax.devices()),), ("d",))
    split = jax.device_put(x, NamedSharding(mesh, PartitionSpec("d")))
    return jax.jit(jnp.sum)(split)
