"""Passes every input through np.asarray first.

Python scalars lose their weak type and share a trace with 0-d arrays.
"""
# expect: wrong_answer
# pitfall: Converting the inputs first.

import jax
import numpy as np


def count_traces(f, inputs):
    traces = 0

    def counted(x):
        nonlocal traces
        traces += 1
        return f(x)

    jitted = jax.jit(counted)
    for x in inputs:
        jitted(np.asarray(x))
    return traces
