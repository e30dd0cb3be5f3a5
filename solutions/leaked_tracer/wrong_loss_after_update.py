"""Returns a loss as an auxiliary output, but the loss of the updated weights, computed after the
step: a plausible number, one step ahead of the loss each train_step call is asked to log."""
# expect: wrong_answer
# pitfall: Logging the wrong loss.

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
    new_w = w - LEARNING_RATE * jax.grad(loss_fn)(w, x, y)
    return new_w, loss_fn(new_w, x, y)


def train_step(w, x, y):
    new_w, loss = _step_and_loss(w, x, y)
    _losses.append(loss)
    return new_w


def loss_history():
    return jnp.asarray(_losses, dtype=jnp.float32)


def reset_history():
    _losses.clear()
