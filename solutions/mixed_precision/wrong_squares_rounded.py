"""Keeps the residuals in float32 but stores the squared errors in bfloat16 before summing them in float32:
each term loses its low bits, and over many terms of one size the losses add up."""
# expect: wrong_answer by test_many_equal_squared_errors
# pitfall: Rounding before the reduction.

import jax
import jax.numpy as jnp


def loss(w, x, y):
    prediction = jnp.matmul(x, w, preferred_element_type=jnp.float32)
    squares = ((prediction - y.astype(jnp.float32)) ** 2).astype(jnp.bfloat16)
    return jnp.sum(squares, dtype=jnp.float32)


def train_step(w, x, y, lr):
    value, grad = jax.value_and_grad(loss)(w, x, y)
    new_w = w.astype(jnp.float32) - lr * grad.astype(jnp.float32)
    return new_w.astype(w.dtype), value
