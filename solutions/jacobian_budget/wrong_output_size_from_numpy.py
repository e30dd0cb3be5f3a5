"""Finds m by evaluating f and turning the result into a NumPy array: under jax.jit, which the grader applies,
f(x) is a tracer, and np.asarray of a tracer raises TracerArrayConversionError before any Jacobian is built."""
# expect: runtime_error by test_a_small_jacobian
# pitfall: Finding `m` by running `f`.

import jax
import numpy as np


def jacobian(f, x):
    n = x.shape[0]
    m = len(np.asarray(f(x)))
    if m >= n:
        return jax.jacfwd(f)(x)
    return jax.jacrev(f)(x)
