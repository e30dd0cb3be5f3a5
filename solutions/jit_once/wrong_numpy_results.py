"""Converts each result with np.asarray: NumPy arrays come back instead of JAX arrays."""
# expect: wrong_answer

import jax
import numpy as np


def jit_once(f, calls):
    batched = jax.jit(jax.vmap(f, in_axes=(None, 0)))
    return [np.asarray(batched(params, xs)) for params, xs in calls]
