"""Logs through jax.pure_callback and ignores its result: a pure callback whose result nothing uses
is dropped from the compiled program, so the host function never runs and the history stays
empty."""
# expect: wrong_answer
# pitfall: `jax.pure_callback` for a side effect.

import jax
import jax.numpy as jnp
import numpy as np

LEARNING_RATE = 0.05
_losses = []


def loss_fn(w, x, y):
    """Half the sum of squared errors of the linear model x @ w."""
    residual = x @ w - y
    return 0.5 * jnp.sum(residual * residual)


def _record(loss):
    _losses.append(loss)
    return np.int32(0)


@jax.jit
def train_step(w, x, y):
    loss, grad = jax.value_and_grad(loss_fn)(w, x, y)
    jax.pure_callback(_record, jax.ShapeDtypeStruct((), jnp.int32), loss)
    return w - LEARNING_RATE * grad


def loss_history():
    return jnp.asarray(_losses, dtype=jnp.float32)


def reset_history():
    _losses.clear()
