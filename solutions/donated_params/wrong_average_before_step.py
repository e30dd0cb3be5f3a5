"""Avoids the deleted array by folding the parameters into the average before the step donates
them: nothing crashes, but the average is one step behind, made of the parameters each step was
given rather than those it returned."""
# expect: wrong_answer
# pitfall: Averaging before the step

import functools

import jax

LEARNING_RATE = 0.1
DECAY = 0.5


@functools.partial(jax.jit, donate_argnums=0)
def sgd_step(params, grads):
    return jax.tree.map(lambda p, g: p - LEARNING_RATE * g, params, grads)


def train(params, grads_seq):
    average = params
    for grads in grads_seq:
        average = jax.tree.map(lambda a, p: DECAY * a + (1 - DECAY) * p, average, params)
        params = sgd_step(params, grads)
    return params, average
