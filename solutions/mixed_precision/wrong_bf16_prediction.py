"""Accumulates the matmul in float32 but stores the prediction back in bfloat16 before the residual: a
prediction close to its target loses the very difference the loss measures."""
# expect: wrong_answer by test_a_target_equal_to_the_rounded_prediction
# pitfall: Rounding the prediction back to the storage dtype.

import jax
import jax.numpy as jnp


def loss(w, x, y):
    prediction = jnp.matmul(x, w, preferred_element_type=jnp.float32).astype(w.dtype)
    residual = prediction.astype(jnp.float32) - y.astype(jnp.float32)
    return jnp.sum(residual * residual)


def train_step(w, x, y, lr):
    value, grad = jax.value_and_grad(loss)(w, x, y)
    new_w = w.astype(jnp.float32) - lr * grad.astype(jnp.float32)
    return new_w.astype(w.dtype), value
