"""Widens the weights and the data to float32 before the matmul: the numbers are right, but the program makes
float32 copies of both and multiplies those, which is what bfloat16 storage was meant to avoid."""
# expect: wrong_answer by test_the_jaxprs_keep_the_arithmetic_in_float32
# pitfall: Widening the weights before the matmul.

import jax
import jax.numpy as jnp


def loss(w, x, y):
    prediction = x.astype(jnp.float32) @ w.astype(jnp.float32)
    residual = prediction - y.astype(jnp.float32)
    return jnp.sum(residual * residual)


def train_step(w, x, y, lr):
    value, grad = jax.value_and_grad(loss)(w, x, y)
    new_w = w.astype(jnp.float32) - lr * grad.astype(jnp.float32)
    return new_w.astype(w.dtype), value
