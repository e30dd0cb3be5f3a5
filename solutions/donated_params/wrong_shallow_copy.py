"""Copies the container, not the arrays: jax.tree.map of the identity builds a new dict holding the
very same arrays, so the first sgd_step still deletes what the average holds."""
# expect: runtime_error
# pitfall: Copying the container, not the arrays

import functools

import jax

LEARNING_RATE = 0.1
DECAY = 0.5


@functools.partial(jax.jit, donate_argnums=0)
def sgd_step(params, grads):
    return jax.tree.map(lambda p, g: p - LEARNING_RATE * g, params, grads)


def train(params, grads_seq):
    average = jax.tree.map(lambda leaf: leaf, params)
    for grads in grads_seq:
        params = sgd_step(params, grads)
        average = jax.tree.map(lambda a, p: DECAY * a + (1 - DECAY) * p, average, params)
    return params, average
