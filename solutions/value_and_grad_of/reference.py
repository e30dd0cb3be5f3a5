"""Reference solution: jax.value_and_grad gives f(x) and its gradient from one pass."""

import jax


def value_and_grad_of(f, x):
    return jax.value_and_grad(f)(x)
