"""Returns the jitted per-row gradient without lowering and compiling it: not a Compiled, and not
bound to the example batch's signature."""
# expect: wrong_answer

import jax


def compiled_grad(f, example_batch):
    return jax.jit(jax.vmap(jax.grad(f)))
