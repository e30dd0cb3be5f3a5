"""Reference solution: the moving average gets buffers of its own before the first step (one
jitted copy of the whole dict), so that sgd_step, which donates the parameters it is given, never
deletes an array the loop still reads. The average is then updated by a jitted function that
donates the old average, and only it."""

import functools

import jax
import jax.numpy as jnp

LEARNING_RATE = 0.1
DECAY = 0.5


@functools.partial(jax.jit, donate_argnums=0)
def sgd_step(params, grads):
    return jax.tree.map(lambda p, g: p - LEARNING_RATE * g, params, grads)


@jax.jit
def _copy(tree):
    return jax.tree.map(jnp.copy, tree)


@functools.partial(jax.jit, donate_argnums=0)
def _moving_average(average, params):
    return jax.tree.map(lambda a, p: DECAY * a + (1 - DECAY) * p, average, params)


def train(params, grads_seq):
    average = _copy(params)
    for grads in grads_seq:
        params = sgd_step(params, grads)
        average = _moving_average(average, params)
    return params, average
