"""Copies the average's start correctly, then jits the average's update donating the new
parameters instead of the old average, as if they were finished with once averaged: the average
takes their buffers, and the next sgd_step, or the caller, gets deleted arrays."""
# expect: runtime_error
# pitfall: Donating what is still needed

import functools

import jax
import jax.numpy as jnp

LEARNING_RATE = 0.1
DECAY = 0.5


@functools.partial(jax.jit, donate_argnums=0)
def sgd_step(params, grads):
    return jax.tree.map(lambda p, g: p - LEARNING_RATE * g, params, grads)


@functools.partial(jax.jit, donate_argnums=1)
def _moving_average(average, params):
    return jax.tree.map(lambda a, p: DECAY * a + (1 - DECAY) * p, average, params)


def train(params, grads_seq):
    average = jax.tree.map(jnp.copy, params)
    for grads in grads_seq:
        params = sgd_step(params, grads)
        average = _moving_average(average, params)
    return params, average
