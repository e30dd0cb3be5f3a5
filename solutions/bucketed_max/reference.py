"""Reference solution: pad on the host with -inf (max's identity) up to the next power of two,
and run jnp.max compiled ahead of time once per (bucket, dtype), kept in a module-level dict."""

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
