"""Compiles f for one row first, then differentiates and batches the executable: a Compiled cannot be
transformed, so lowering raises TypeError (and an empty batch has no first row to compile for)."""
# expect: runtime_error
# pitfall: Transforming the executable.

import jax


def compiled_grad(f, example_batch):
    row_executable = jax.jit(f).lower(example_batch[0]).compile()
    return jax.jit(jax.vmap(jax.grad(row_executable))).lower(example_batch).compile()
