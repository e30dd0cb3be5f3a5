"""Compiles the gradient for one row and vmaps the executable: the result is a plain function, not a
Compiled, calling it raises TypeError, and an empty batch has no first row to compile for."""
# expect: runtime_error

import jax


def compiled_grad(f, example_batch):
    return jax.vmap(jax.jit(jax.grad(f)).lower(example_batch[0]).compile())
