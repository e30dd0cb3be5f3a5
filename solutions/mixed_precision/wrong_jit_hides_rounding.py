"""Jits the all-bfloat16 loss, whose numbers came out right when tried under jit: XLA:CPU fused the matmul,
subtraction, square and sum into one kernel that skipped the roundings, but the program still asks for them,
and run as written, or at other shapes, it rounds."""
# expect: wrong_answer by test_the_jaxprs_keep_the_arithmetic_in_float32
# pitfall: Trusting the numbers under jit.

import jax
import jax.numpy as jnp


@jax.jit
def loss(w, x, y):
    return jnp.sum((x @ w - y) ** 2, dtype=jnp.float32)


@jax.jit
def train_step(w, x, y, lr):
    value, grad = jax.value_and_grad(loss)(w, x, y)
    return (w - lr * grad).astype(w.dtype), value
