"""Computes the loss entirely in bfloat16 and widens only the finished sum to float32: the dtype is right, but
the predictions, residuals and squares were all rounded to bfloat16 on the way."""
# expect: wrong_answer by test_a_target_equal_to_the_rounded_prediction
# pitfall: Widening only the result.

import jax
import jax.numpy as jnp


def loss(w, x, y):
    return jnp.sum((x @ w - y) ** 2).astype(jnp.float32)


def train_step(w, x, y, lr):
    value, grad = jax.value_and_grad(loss)(w, x, y)
    new_w = w.astype(jnp.float32) - lr * grad.astype(jnp.float32)
    return new_w.astype(w.dtype), value
