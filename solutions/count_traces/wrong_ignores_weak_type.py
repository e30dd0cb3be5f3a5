"""Counts distinct (shape, dtype) pairs: a Python float and a float32 0-d array look alike.

But jit keys weak types apart.
"""
# expect: wrong_answer
# pitfall: Forgetting the weak type.

import jax.numpy as jnp


def count_traces(f, inputs):
    return len({(jnp.shape(x), jnp.result_type(x)) for x in inputs})
