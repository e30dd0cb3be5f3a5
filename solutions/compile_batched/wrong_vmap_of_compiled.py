"""Compiles f for one row and vmaps the executable: a compiled function cannot be transformed."""
# expect: runtime_error

import jax


def compile_batched(f, example_batch):
    return jax.vmap(jax.jit(f).lower(example_batch[0]).compile())
