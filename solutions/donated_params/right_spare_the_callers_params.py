"""Leaves the caller's arrays alone: the loop works on a copy of the parameters, which sgd_step may
donate, while the average starts from the caller's own arrays, which nothing donates. The average
is written as a step towards the new parameters, which rounds a little differently."""

import functools

import jax

LEARNING_RATE = 0.1
DECAY = 0.5


@functools.partial(jax.jit, donate_argnums=0)
def sgd_step(params, grads):
    return jax.tree.map(lambda p, g: p - LEARNING_RATE * g, params, grads)


def train(params, grads_seq):
    average = params
    current = jax.tree.map(lambda leaf: leaf.copy(), params)
    for grads in grads_seq:
        current = sgd_step(current, grads)
        average = jax.tree.map(lambda a, p: a + (1 - DECAY) * (p - a), average, current)
    return current, average
