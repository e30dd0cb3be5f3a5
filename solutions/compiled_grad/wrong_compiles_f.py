"""Compiles the batched f itself: the executable returns one value of f per row, not its gradient."""
# expect: wrong_answer
# pitfall: Compiling `f` itself.

import jax


def compiled_grad(f, example_batch):
    return jax.jit(jax.vmap(f)).lower(example_batch).compile()
