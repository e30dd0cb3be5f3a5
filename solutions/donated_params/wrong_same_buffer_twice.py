"""Moves the average into the donated step, so that one program updates both in place, but starts
the average as the parameters themselves: the first call donates one buffer twice, which XLA
refuses ("Attempt to donate the same buffer twice")."""
# expect: runtime_error
# pitfall: Donating one buffer twice

import functools

import jax

LEARNING_RATE = 0.1
DECAY = 0.5


@functools.partial(jax.jit, donate_argnums=0)
def sgd_step(params, grads):
    return jax.tree.map(lambda p, g: p - LEARNING_RATE * g, params, grads)


@functools.partial(jax.jit, donate_argnums=(0, 1))
def _step_and_average(params, average, grads):
    params = jax.tree.map(lambda p, g: p - LEARNING_RATE * g, params, grads)
    return params, jax.tree.map(lambda a, p: DECAY * a + (1 - DECAY) * p, average, params)


def train(params, grads_seq):
    average = params
    for grads in grads_seq:
        params, average = _step_and_average(params, average, grads)
    return params, average
