"""Declares the result with the input's ShapeDtypeStruct: right for int32 inputs, but for any other
dtype the host's int32 ranks do not match the declared dtype, and the program fails when it runs
("Incorrect output dtype for return value #0")."""
# expect: runtime_error
# pitfall: Declaring the input's type.

import jax
import numpy as np


def host_dense_rank(x):
    """NumPy, on the host: for each element, how many distinct values of x are smaller."""
    _, inverse = np.unique(np.asarray(x), return_inverse=True)
    return inverse.reshape(np.shape(x))


def dense_rank(x):
    spec = jax.ShapeDtypeStruct(x.shape, x.dtype)
    return jax.pure_callback(host_dense_rank, spec, x, vmap_method="sequential")
