"""Sums with NumPy: a NumPy scalar instead of a JAX array, and no compilation."""
# expect: wrong_answer

import numpy as np


def aot_compiled_sum(x):
    return np.sum(np.asarray(x))
