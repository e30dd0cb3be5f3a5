"""Reference solution: pad on the host with -inf to a power of two; one AOT jnp.max per (bucket, dtype).

An executable compiled ahead of time is bound to one shape and dtype, and every eager jnp operation or jitted
call compiles once per new shape, so the only way to serve a thousand lengths within the budget is to make
many lengths look alike. Rounding each length up to a power of two gives eleven buckets, and the dict at
module level keyed by (bucket, dtype) compiles each pair the first time it is met and never again. The padding
is done with NumPy on the host, which compiles nothing, and the padding value is -inf, the one value that can
never beat a real element (a vector of only -inf still has -inf as its maximum). The max over the padded
vector is therefore exactly jnp.max(x), computed by a program XLA built before the call that needs it.
"""

import jax
import jax.numpy as jnp
import numpy as np

_EXECUTABLES = {}


def _bucket(n):
    return 1 << (n - 1).bit_length()  # 1, 2, 4, 8, ...; a power of two is its own bucket


def bucketed_max(x):
    n = x.shape[0]
    size = _bucket(n)
    key = (size, jnp.dtype(x.dtype))
    if key not in _EXECUTABLES:
        spec = jax.ShapeDtypeStruct((size,), x.dtype)
        _EXECUTABLES[key] = jax.jit(jnp.max).lower(spec).compile()
    # Padding in NumPy costs no compile; -inf never beats a real value, and ties with -inf.
    padded = np.full(size, -np.inf, dtype=x.dtype)
    padded[:n] = np.asarray(x)
    return _EXECUTABLES[key](padded)
