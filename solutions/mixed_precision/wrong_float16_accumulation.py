"""Uses float16 as the wide type for the matmul and the sum: it has more significant bits than bfloat16, but
its largest finite value is 65504, so large predictions and long sums overflow to infinity."""
# expect: wrong_answer by test_values_beyond_float16
# pitfall: float16 as the wide type.

import jax
import jax.numpy as jnp


def loss(w, x, y):
    prediction = jnp.matmul(x, w, preferred_element_type=jnp.float16)
    residual = prediction - y.astype(jnp.float16)
    return jnp.sum(residual * residual).astype(jnp.float32)


def train_step(w, x, y, lr):
    value, grad = jax.value_and_grad(loss)(w, x, y)
    new_w = w.astype(jnp.float32) - lr * grad.astype(jnp.float32)
    return new_w.astype(w.dtype), value
