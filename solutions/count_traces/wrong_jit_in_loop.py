"""Makes a new jax.jit(lambda ...) for every input.

Each new lambda has an empty cache, so it counts one trace per input.
"""
# expect: wrong_answer
# pitfall: A new `jax.jit(lambda ...)` per call.

import jax


def count_traces(f, inputs):
    traces = 0

    def counted(x):
        nonlocal traces
        traces += 1
        return f(x)

    for x in inputs:
        jax.jit(lambda v: counted(v))(x)
    return traces
