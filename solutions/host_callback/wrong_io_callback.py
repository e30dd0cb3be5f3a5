"""Calls the host function with io_callback, the callback for functions with side effects: right
values under jit and vmap, but the function is pure, and the jaxpr shows an io_callback, which JAX
must keep and run even when its result is unused, instead of a pure_callback."""
# expect: wrong_answer
# pitfall: `io_callback` for a pure function.

import jax
import jax.numpy as jnp
import numpy as np
from jax.experimental import io_callback


def host_dense_rank(x):
    """NumPy, on the host: for each element, how many distinct values of x are smaller."""
    _, inverse = np.unique(np.asarray(x), return_inverse=True)
    return inverse.reshape(np.shape(x))


def dense_rank(x):
    spec = jax.ShapeDtypeStruct(x.shape, jnp.int32)
    return io_callback(lambda v: host_dense_rank(v).astype(np.int32), spec, x)
