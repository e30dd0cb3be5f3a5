"""Evaluates the per-row gradients at the example batch and returns that array instead of an
executable for the batch's signature."""
# expect: wrong_answer
# pitfall: Evaluating instead of compiling.

import jax


def compiled_grad(f, example_batch):
    return jax.jit(jax.vmap(jax.grad(f)))(example_batch)
