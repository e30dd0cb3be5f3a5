"""Logs through an ordered io_callback, the callback for side effects: it runs on every call of the
jitted step with the concrete loss, in call order, and returns nothing to the program."""

import jax
import jax.numpy as jnp
import numpy as np
from jax.experimental import io_callback

LEARNING_RATE = 0.05
_losses = []


def loss_fn(w, x, y):
    """Half the sum of squared errors of the linear model x @ w."""
    residual = x @ w - y
    return 0.5 * jnp.sum(residual * residual)


def _record(loss):
    _losses.append(np.asarray(loss, dtype=np.float32))


@jax.jit
def train_step(w, x, y):
    loss, grad = jax.value_and_grad(loss_fn)(w, x, y)
    io_callback(_record, None, loss, ordered=True)
    return w - LEARNING_RATE * grad


def loss_history():
    jax.effects_barrier()
    return jnp.asarray(np.array(_losses, dtype=np.float32).reshape(len(_losses)))


def reset_history():
    jax.effects_barrier()
    _losses.clear()
