"""Loops over the rows in Python and stacks the results: unrolled, and it cannot stack an empty batch."""
# expect: runtime_error

import jax
import jax.numpy as jnp


def compile_batched(f, example_batch):
    def batched(batch):
        return jnp.stack([f(row) for row in batch])

    return jax.jit(batched).lower(example_batch).compile()
