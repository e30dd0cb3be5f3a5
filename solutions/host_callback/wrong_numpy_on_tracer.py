"""Calls the NumPy function directly on its argument: right when called on a concrete array, but
under jax.jit the argument is a tracer, and NumPy's conversion of it raises
TracerArrayConversionError (and the jaxpr cannot be made either)."""
# expect: runtime_error
# pitfall: NumPy on a tracer.

import jax.numpy as jnp
import numpy as np


def host_dense_rank(x):
    """NumPy, on the host: for each element, how many distinct values of x are smaller."""
    _, inverse = np.unique(np.asarray(x), return_inverse=True)
    return inverse.reshape(np.shape(x))


def dense_rank(x):
    return jnp.asarray(host_dense_rank(x), dtype=jnp.int32)
