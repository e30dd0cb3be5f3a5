"""Avoids the deleted array by handing sgd_step a fresh copy of the parameters at every step: the
copy is what gets donated, so the arrays the average holds survive and nothing crashes, but each
step now keeps the old parameters alive beside the new ones and makes one more full copy of them,
the memory that donating was meant to save.

The average still starts as the caller's own arrays (average = params), which no step donates any
more; the values are those of the plain loop. Only where a second, independent array is needed
should a copy be made, and then once, before the loop.
"""
# expect: wrong_answer
# pitfall: Copying before every step

import functools

import jax
import jax.numpy as jnp

LEARNING_RATE = 0.1
DECAY = 0.5


@functools.partial(jax.jit, donate_argnums=0)
def sgd_step(params, grads):
    return jax.tree.map(lambda p, g: p - LEARNING_RATE * g, params, grads)


def train(params, grads_seq):
    average = params
    for grads in grads_seq:
        params = sgd_step(jax.tree.map(jnp.copy, params), grads)
        average = jax.tree.map(lambda a, p: DECAY * a + (1 - DECAY) * p, average, params)
    return params, average
