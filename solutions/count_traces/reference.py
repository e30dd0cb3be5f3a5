"""Reference solution: count how often f's Python body runs under one jax.jit called on every input.

jax.jit runs a function's Python body only while tracing it, and it traces only when a call's cache key is
new: the pytree structure and the abstract value of each argument, its shape, dtype and weak type. A Python
side effect, here a counter incremented before calling f, therefore counts exactly the traces and nothing
else. The jitted wrapper is made once, before the loop, so that every call meets the same cache, and each
input is passed as it is: converting them first would erase the difference between a Python float or int
(weakly typed) and a 0-d array of the same dtype, which jit keys apart. A Python bool is not weak, so it
shares a trace with a bool[] array, and the counter sees that too without any rule written by hand. Jitted
functions that f calls have their own caches and never run the counter, so they do not count.
"""

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
