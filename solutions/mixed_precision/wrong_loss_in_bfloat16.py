"""Computes everything in float32 but returns the loss in the storage dtype, bfloat16: the contract keeps only
the weights in bfloat16, and a rounded loss hides small changes between steps."""
# expect: wrong_answer by test_one_step_keeps_every_dtype
# pitfall: The loss in the storage dtype.

import jax
import jax.numpy as jnp


def loss(w, x, y):
    prediction = jnp.matmul(x, w, preferred_element_type=jnp.float32)
    residual = prediction - y.astype(jnp.float32)
    return jnp.sum(residual * residual).astype(w.dtype)


def train_step(w, x, y, lr):
    value, grad = jax.value_and_grad(loss)(w, x, y)
    new_w = w.astype(jnp.float32) - lr * grad.astype(jnp.float32)
    return new_w.astype(w.dtype), value
