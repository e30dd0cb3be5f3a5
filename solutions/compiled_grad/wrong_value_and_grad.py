"""Compiles jax.value_and_grad(f): the executable returns a (value, gradient) pair."""
# expect: wrong_answer

import jax


def compiled_grad(f, x):
    return jax.jit(jax.value_and_grad(f)).lower(x).compile()
