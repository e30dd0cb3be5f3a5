"""Special-cases 0-d inputs with a Python if: fine when called directly (and under grad), but jit and vmap trace it."""
# expect: runtime_error
# pitfall: Deciding in Python.

import jax.numpy as jnp


def relu_jittable(x):
    if x.ndim == 0:
        return x if x > 0 else jnp.zeros_like(x)
    return jnp.maximum(x, jnp.zeros((), dtype=x.dtype))
