"""Compiles jax.value_and_grad of the row function: the executable returns a (values, gradients)
pair, not the gradients alone."""
# expect: wrong_answer

import jax


def compiled_grad(f, example_batch):
    return jax.jit(jax.vmap(jax.value_and_grad(f))).lower(example_batch).compile()
