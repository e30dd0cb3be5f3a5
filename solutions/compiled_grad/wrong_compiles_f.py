"""Compiles f itself: the executable returns f's value, not its gradient."""
# expect: wrong_answer

import jax


def compiled_grad(f, x):
    return jax.jit(f).lower(x).compile()
