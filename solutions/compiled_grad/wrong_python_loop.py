"""Loops over the rows in Python and stacks one gradient per row: unrolled into the program, and
jnp.stack has nothing to stack for an empty batch."""
# expect: runtime_error
# pitfall: A Python loop over the rows

import jax
import jax.numpy as jnp


def compiled_grad(f, example_batch):
    def per_row(batch):
        return jnp.stack([jax.grad(f)(row) for row in batch])

    return jax.jit(per_row).lower(example_batch).compile()
