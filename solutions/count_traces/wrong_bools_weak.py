"""Keys on (shape, dtype, is a Python scalar).

But a Python bool is not weakly typed: it shares a trace with bool 0-d arrays.
"""
# expect: wrong_answer
# pitfall: Calling every Python scalar weak.

import jax.numpy as jnp


def count_traces(f, inputs):
    return len({(jnp.shape(x), jnp.result_type(x), isinstance(x, (int, float))) for x in inputs})
