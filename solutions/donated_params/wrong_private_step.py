"""Leaves sgd_step donating, as asked, but has train use a jitted update of its own that donates
nothing: the loop no longer crashes, and no longer reuses the parameters' buffers either."""
# expect: wrong_answer

import functools

import jax

LEARNING_RATE = 0.1
DECAY = 0.5


@functools.partial(jax.jit, donate_argnums=0)
def sgd_step(params, grads):
    return jax.tree.map(lambda p, g: p - LEARNING_RATE * g, params, grads)


@jax.jit
def _update(params, grads):
    return jax.tree.map(lambda p, g: p - LEARNING_RATE * g, params, grads)


def train(params, grads_seq):
    average = params
    for grads in grads_seq:
        params = _update(params, grads)
        average = jax.tree.map(lambda a, p: DECAY * a + (1 - DECAY) * p, average, params)
    return params, average
