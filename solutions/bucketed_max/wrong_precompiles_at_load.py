"""Compiles all 33 (bucket, dtype) executables when the module loads: those compiles count, and
a grading that meets fewer pairs than that is over the budget."""
# expect: wrong_answer
# pitfall: Compiling every bucket at import.

import jax
import jax.numpy as jnp
import numpy as np

_EXECUTABLES = {
    (1 << k, jnp.dtype(dtype)): jax.jit(jnp.max).lower(jax.ShapeDtypeStruct((1 << k,), dtype)).compile()
    for k in range(11)
    for dtype in (jnp.float32, jnp.float16, jnp.bfloat16)
}


def bucketed_max(x):
    n = x.shape[0]
    size = 1 << (n - 1).bit_length()
    padded = np.full(size, -np.inf, dtype=x.dtype)
    padded[:n] = np.asarray(x)
    return _EXECUTABLES[(size, jnp.dtype(x.dtype))](padded)
