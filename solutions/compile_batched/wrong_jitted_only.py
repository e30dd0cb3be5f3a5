"""Returns jax.jit(jax.vmap(f)) without lowering and compiling it: not bound to the example's signature."""
# expect: wrong_answer

import jax


def compile_batched(f, example_batch):
    return jax.jit(jax.vmap(f))
