"""Reference solution: the jitted step returns the loss beside the new weights, as an auxiliary
output, and a plain Python train_step keeps that concrete loss (an array, never a tracer) in the
history after every call, whether or not the call traced."""

import jax
import jax.numpy as jnp

LEARNING_RATE = 0.05
_losses = []


def loss_fn(w, x, y):
    """Half the sum of squared errors of the linear model x @ w."""
    residual = x @ w - y
    return 0.5 * jnp.sum(residual * residual)


@jax.jit
def _step_and_loss(w, x, y):
    loss, grad = jax.value_and_grad(loss_fn)(w, x, y)
    return w - LEARNING_RATE * grad, loss


def train_step(w, x, y):
    new_w, loss = _step_and_loss(w, x, y)
    _losses.append(loss)
    return new_w


def loss_history():
    return jnp.asarray(_losses, dtype=jnp.float32)


def reset_history():
    _losses.clear()
