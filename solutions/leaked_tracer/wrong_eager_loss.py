"""Keeps the step jitted but logs by computing the loss a second time in Python, outside jit: the
history is right, but every step evaluates the loss operation by operation, each operation
traced and compiled on its own for a new shape."""
# expect: wrong_answer
# pitfall: Computing the loss again outside jit.

import jax
import jax.numpy as jnp

LEARNING_RATE = 0.05
_losses = []


def loss_fn(w, x, y):
    """Half the sum of squared errors of the linear model x @ w."""
    residual = x @ w - y
    return 0.5 * jnp.sum(residual * residual)


@jax.jit
def _step(w, x, y):
    return w - LEARNING_RATE * jax.grad(loss_fn)(w, x, y)


def train_step(w, x, y):
    _losses.append(loss_fn(w, x, y))
    return _step(w, x, y)


def loss_history():
    return jnp.asarray(_losses, dtype=jnp.float32)


def reset_history():
    _losses.clear()
