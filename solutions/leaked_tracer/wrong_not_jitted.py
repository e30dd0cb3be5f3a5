"""Removes jax.jit, so that the loss is a concrete array when it is logged: the history is right,
but train_step is no longer one compiled program: every operation of the step is dispatched and
compiled on its own."""
# expect: wrong_answer
# pitfall: Dropping `jax.jit`.

import jax
import jax.numpy as jnp

LEARNING_RATE = 0.05
_losses = []


def loss_fn(w, x, y):
    """Half the sum of squared errors of the linear model x @ w."""
    residual = x @ w - y
    return 0.5 * jnp.sum(residual * residual)


def train_step(w, x, y):
    loss, grad = jax.value_and_grad(loss_fn)(w, x, y)
    _losses.append(loss)
    return w - LEARNING_RATE * grad


def loss_history():
    return jnp.asarray(_losses, dtype=jnp.float32)


def reset_history():
    _losses.clear()
