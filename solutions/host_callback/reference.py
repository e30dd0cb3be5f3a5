"""Reference solution: jax.pure_callback of the NumPy dense rank, declared as an int32 array of the
argument's shape, with vmap_method="sequential": the host function ranks a whole array, so under
jax.vmap it must be called once per example, never on the whole batch."""

import jax
import jax.numpy as jnp
import numpy as np


def host_dense_rank(x):
    """NumPy, on the host: for each element, how many distinct values of x are smaller."""
    _, inverse = np.unique(np.asarray(x), return_inverse=True)
    return inverse.reshape(np.shape(x))


def _host_ranks_int32(x):
    return host_dense_rank(x).astype(np.int32)


def dense_rank(x):
    ranks = jax.ShapeDtypeStruct(jnp.shape(x), jnp.int32)
    return jax.pure_callback(_host_ranks_int32, ranks, x, vmap_method="sequential")
