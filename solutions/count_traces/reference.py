"""Reference solution: count how often f's Python body runs under one jax.jit called on every input."""

import jax


def count_traces(f, inputs):
    traces = 0

    def counted(x):
        nonlocal traces
        traces += 1  # Python side effect: runs only while jit traces
        return f(x)

    jitted = jax.jit(counted)
    for x in inputs:
        jitted(x)
    return traces
