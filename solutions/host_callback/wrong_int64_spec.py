"""Declares the result as int64, the dtype np.unique's indices have: with 64-bit mode off, pure_callback
refuses a 64-bit result declaration while tracing, so every call fails."""
# expect: runtime_error by test_ranks_of_a_vector
# pitfall: 64-bit types.

import jax
import numpy as np


def host_dense_rank(x):
    """NumPy, on the host: for each element, how many distinct values of x are smaller."""
    _, inverse = np.unique(np.asarray(x), return_inverse=True)
    return inverse.reshape(np.shape(x))


def dense_rank(x):
    # np.unique returns int64 indices, so declare what the host really gives back.
    spec = jax.ShapeDtypeStruct(np.shape(x), np.int64)
    return jax.pure_callback(host_dense_rank, spec, x, vmap_method="sequential")
