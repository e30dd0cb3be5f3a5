"""Differentiates f at each element on its own (vmap of grad): wrong as soon as f mixes elements."""
# expect: wrong_answer

import jax


def value_and_grad_of(f, x):
    flat = x.reshape(-1)
    slopes = jax.vmap(jax.grad(f))(flat)
    return f(x), slopes.reshape(x.shape)
