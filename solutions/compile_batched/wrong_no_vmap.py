"""Forgets vmap: f is applied to the whole batch at once, not row by row."""
# expect: wrong_answer

import jax


def compile_batched(f, example_batch):
    return jax.jit(f).lower(example_batch).compile()
