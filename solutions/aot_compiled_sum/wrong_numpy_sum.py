"""Sums with NumPy: a NumPy scalar instead of a JAX array, and no compilation."""
# expect: wrong_answer
# pitfall: Keep JAX types.

import numpy as np


def aot_compiled_sum(x):
    return np.sum(np.asarray(x))
