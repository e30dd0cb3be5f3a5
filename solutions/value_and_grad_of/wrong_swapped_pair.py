"""Returns (gradient, value): the pair in the wrong order."""
# expect: wrong_answer
# pitfall: Swapping the pair.

import jax


def value_and_grad_of(f, x):
    value, grad = jax.value_and_grad(f)(x)
    return grad, value
