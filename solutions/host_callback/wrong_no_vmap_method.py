"""A right pure_callback with no vmap_method: it works called directly and under jax.jit, but
jax.vmap of it raises NotImplementedError, since JAX does not guess how to batch a host function."""
# expect: runtime_error
# pitfall: No `vmap_method`.

import jax
import jax.numpy as jnp
import numpy as np


def host_dense_rank(x):
    """NumPy, on the host: for each element, how many distinct values of x are smaller."""
    _, inverse = np.unique(np.asarray(x), return_inverse=True)
    return inverse.reshape(np.shape(x))


def dense_rank(x):
    spec = jax.ShapeDtypeStruct(x.shape, jnp.int32)
    return jax.pure_callback(lambda v: host_dense_rank(v).astype(np.int32), spec, x)
