"""Approximates the gradient by forward differences, one coordinate at a time."""
# expect: wrong_answer
# pitfall: Finite differences.

import jax.numpy as jnp


def value_and_grad_of(f, x):
    h = 1e-3
    value = f(x)
    flat = x.reshape(-1)
    slopes = []
    for i in range(flat.size):
        step = flat.at[i].add(h).reshape(x.shape)
        slopes.append((f(step) - value) / h)
    grad = jnp.asarray(slopes, dtype=x.dtype).reshape(x.shape)
    return value, grad
