"""Reference solution: the matmul asks for a float32 result from bfloat16 operands, the loss stays float32 to
the end, and the step rounds the new weights back to bfloat16.

bfloat16 keeps only 8 significant bits, so any value it stores is off by up to 1 part in 512, and a residual
formed from a rounded prediction can be nothing but that rounding error. The reference therefore lets the
matmul take the bfloat16 weights and data as they are but return float32 (preferred_element_type), forms the
residual, its square and their sum in float32, and rounds nothing until the end: the loss is returned in
float32. jax.grad differentiates through the widened result and hands back a gradient in the weights' own
dtype, bfloat16, and the update is done in float32 (the learning rate is a float32 array, which would
otherwise promote the weights) and rounded to the weights' dtype once, so the new weights keep their storage
dtype from step to step. No float32 copy of the weights or the data ever enters a matmul, which is what the
jaxpr shows.
"""

import jax
import jax.numpy as jnp


def loss(w, x, y):
    prediction = jnp.matmul(x, w, preferred_element_type=jnp.float32)
    residual = prediction - y.astype(jnp.float32)
    return jnp.sum(residual * residual)


def train_step(w, x, y, lr):
    value, grad = jax.value_and_grad(loss)(w, x, y)
    new_w = w.astype(jnp.float32) - lr * grad.astype(jnp.float32)
    return new_w.astype(w.dtype), value
