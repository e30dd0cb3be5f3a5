"""Lowers for a float32 copy of the example batch: the executable is for another signature and
refuses float16 and bfloat16 batches."""
# expect: wrong_answer

import jax
import jax.numpy as jnp


def compiled_grad(f, example_batch):
    return jax.jit(jax.vmap(jax.grad(f))).lower(example_batch.astype(jnp.float32)).compile()
