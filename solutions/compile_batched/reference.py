"""Reference solution: vmap f over the rows, jit it, lower it for the example batch and compile it."""

import jax


def compile_batched(f, example_batch):
    return jax.jit(jax.vmap(f)).lower(example_batch).compile()
