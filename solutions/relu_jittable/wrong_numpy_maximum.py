"""Uses np.maximum: a NumPy array comes back, and traced values cannot be turned into NumPy at all."""
# expect: runtime_error
# pitfall: NumPy functions.

import numpy as np


def relu_jittable(x):
    return np.maximum(x, 0)
