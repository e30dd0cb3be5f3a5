"""Lowers for a batch of one row (example_batch[:1]): the executable refuses the real batch size."""
# expect: runtime_error

import jax


def compile_batched(f, example_batch):
    return jax.jit(jax.vmap(f)).lower(example_batch[:1]).compile()
