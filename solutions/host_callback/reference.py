"""Reference solution: jax.pure_callback of the NumPy dense rank, declared int32 of x's shape, mapped sequentially.

NumPy needs concrete arrays, but under jit the argument is a tracer, so the host function has to be called
from inside the compiled program, and jax.pure_callback does that: at run time it hands the host function real
arrays and takes back its result. JAX cannot run the host code while tracing, so the result's shape and dtype
are declared beforehand with a ShapeDtypeStruct, and the host side must return exactly that: int32, since
np.unique's indices are 64-bit and 64-bit types are off. Declaring it pure tells JAX it has no side effects,
which is true of a ranking, so JAX may drop it when nothing uses its result and may batch it under vmap as
vmap_method says. vmap_method="sequential" calls the host function once per example, because a dense rank of a
whole batch counts values across examples, while each example must be ranked among its own elements only.
"""

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
