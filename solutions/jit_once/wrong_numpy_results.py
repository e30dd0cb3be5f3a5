"""Converts each result with np.asarray: NumPy arrays come back instead of JAX arrays."""
# expect: wrong_answer

import jax
import numpy as np


def jit_once(f, xs):
    jitted = jax.jit(f)
    return [np.asarray(jitted(x)) for x in xs]
