"""Keeps average = params, taking it for a copy, and blames the eager tree.map instead: the average's update
is jitted, but the average still names the arrays the first sgd_step deletes, so that update is handed deleted
buffers.

Assigning a dict to a second name copies nothing: both names hold the same arrays, and donating them through
one name deletes them for the other too.
"""
# expect: runtime_error by test_two_steps_and_their_average
# pitfall: Reading `average = params` as a copy

import functools

import jax

LEARNING_RATE = 0.1
DECAY = 0.5


@functools.partial(jax.jit, donate_argnums=0)
def sgd_step(params, grads):
    return jax.tree.map(lambda p, g: p - LEARNING_RATE * g, params, grads)


@jax.jit
def _moving_average(average, params):
    return jax.tree.map(lambda a, p: DECAY * a + (1 - DECAY) * p, average, params)


def train(params, grads_seq):
    average = params  # the average starts at the parameters
    for grads in grads_seq:
        params = sgd_step(params, grads)
        average = _moving_average(average, params)
    return params, average
