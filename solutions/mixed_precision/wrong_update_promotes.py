"""Gets the loss right but updates the weights with the float32 learning rate as it is: bfloat16 times a
float32 array promotes, so the new weights come back in float32."""
# expect: wrong_answer by test_one_step_keeps_every_dtype
# pitfall: A float32 learning rate in the update.

import jax
import jax.numpy as jnp


def loss(w, x, y):
    prediction = jnp.matmul(x, w, preferred_element_type=jnp.float32)
    residual = prediction - y.astype(jnp.float32)
    return jnp.sum(residual * residual)


def train_step(w, x, y, lr):
    value, grad = jax.value_and_grad(loss)(w, x, y)
    return w - lr * grad, value
