"""Lowers for a batch of one row (example_batch[:1]): the executable is built for another signature
and refuses the real batch size."""
# expect: runtime_error
# pitfall: Lowering for another signature

import jax


def compiled_grad(f, example_batch):
    return jax.jit(jax.vmap(jax.grad(f))).lower(example_batch[:1]).compile()
