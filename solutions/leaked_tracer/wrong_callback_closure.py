"""Moves the append into jax.debug.callback, but as a closure that captures the loss instead of
receiving it as an argument: the callback runs on every call, yet what it appends is the tracer it
closed over, so the history holds leaked tracers and loss_history raises UnexpectedTracerError."""
# expect: runtime_error
# pitfall: A callback that closes over the tracer.

import jax
import jax.numpy as jnp

LEARNING_RATE = 0.05
_losses = []


def loss_fn(w, x, y):
    """Half the sum of squared errors of the linear model x @ w."""
    residual = x @ w - y
    return 0.5 * jnp.sum(residual * residual)


@jax.jit
def train_step(w, x, y):
    loss, grad = jax.value_and_grad(loss_fn)(w, x, y)
    jax.debug.callback(lambda: _losses.append(loss))
    return w - LEARNING_RATE * grad


def loss_history():
    jax.effects_barrier()
    return jnp.asarray(_losses, dtype=jnp.float32)


def reset_history():
    _losses.clear()
