"""Turns the loss into a Python float inside the jitted step before appending it: while tracing the loss is a tracer
with no value yet, so float(loss) raises a ConcretizationTypeError on the first call."""
# expect: runtime_error by test_every_call_is_logged
# pitfall: Converting the tracer.

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
    _losses.append(float(loss))  # a plain number, so that nothing can leak
    return w - LEARNING_RATE * grad


def loss_history():
    return jnp.asarray(_losses, dtype=jnp.float32)


def reset_history():
    _losses.clear()
