"""Returns the gradient at the example x (an array) instead of an executable."""
# expect: wrong_answer

import jax


def compiled_grad(f, x):
    return jax.jit(jax.grad(f))(x)
