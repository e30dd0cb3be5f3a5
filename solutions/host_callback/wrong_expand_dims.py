"""Batches with vmap_method="expand_dims", which hands the host function the whole batch in one
call: the function ranks all the examples' values together, so under jax.vmap an example's ranks
count values of the other examples (right only when called on one array)."""
# expect: wrong_answer
# pitfall: Handing the host the whole batch.

import jax
import jax.numpy as jnp
import numpy as np


def host_dense_rank(x):
    """NumPy, on the host: for each element, how many distinct values of x are smaller."""
    _, inverse = np.unique(np.asarray(x), return_inverse=True)
    return inverse.reshape(np.shape(x))


def dense_rank(x):
    spec = jax.ShapeDtypeStruct(x.shape, jnp.int32)
    return jax.pure_callback(lambda v: host_dense_rank(v).astype(np.int32), spec, x, vmap_method="expand_dims")
