"""Counts the traces in a NumPy array and returns its element: a numpy.int64, not a Python int."""
# expect: wrong_answer

import jax
import numpy as np


def count_traces(f, inputs):
    traces = np.zeros(1, dtype=np.int64)  # mutable without nonlocal

    def counted(x):
        traces[0] += 1
        return f(x)

    jitted = jax.jit(counted)
    for x in inputs:
        jitted(x)
    return traces[0]
