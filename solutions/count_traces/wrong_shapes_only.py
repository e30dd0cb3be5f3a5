"""Counts distinct shapes only: arrays of one shape and different dtypes each need their own trace."""
# expect: wrong_answer
# pitfall: Counting only shapes.

import jax.numpy as jnp


def count_traces(f, inputs):
    return len({jnp.shape(x) for x in inputs})
