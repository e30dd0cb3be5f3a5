"""Leaves the matmul, the residuals and the squares in bfloat16 and asks only the sum for float32: the sum is
wide, but each prediction was rounded before its residual was formed."""
# expect: wrong_answer by test_a_target_equal_to_the_rounded_prediction
# pitfall: Everything in bfloat16.

import jax
import jax.numpy as jnp


def loss(w, x, y):
    return jnp.sum((x @ w - y) ** 2, dtype=jnp.float32)


def train_step(w, x, y, lr):
    value, grad = jax.value_and_grad(loss)(w, x, y)
    return (w - lr * grad).astype(w.dtype), value
