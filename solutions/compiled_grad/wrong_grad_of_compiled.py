"""Compiles f first and differentiates the executable: a compiled function cannot be transformed."""
# expect: wrong_answer

import jax


def compiled_grad(f, x):
    return jax.grad(jax.jit(f).lower(x).compile())
