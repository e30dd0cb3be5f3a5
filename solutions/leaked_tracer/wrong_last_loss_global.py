"""Still logs from the jitted body: it stores the loss in a module-level variable that a Python wrapper appends
after each call, but the body only runs while tracing, so every entry is the same leaked tracer and loss_history
raises UnexpectedTracerError."""
# expect: runtime_error by test_every_call_is_logged
# pitfall: Logging from the body.

import jax
import jax.numpy as jnp

LEARNING_RATE = 0.05
_losses = []
_last_loss = None  # set by the jitted step, read by train_step


def loss_fn(w, x, y):
    """Half the sum of squared errors of the linear model x @ w."""
    residual = x @ w - y
    return 0.5 * jnp.sum(residual * residual)


@jax.jit
def _step(w, x, y):
    global _last_loss
    loss, grad = jax.value_and_grad(loss_fn)(w, x, y)
    _last_loss = loss
    return w - LEARNING_RATE * grad


def train_step(w, x, y):
    new_w = _step(w, x, y)
    _losses.append(_last_loss)
    return new_w


def loss_history():
    return jnp.asarray(_losses, dtype=jnp.float32)


def reset_history():
    _losses.clear()
