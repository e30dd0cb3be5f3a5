"""Makes the crash go away by removing donate_argnums: nothing is deleted any more, and the values
are right, but every step now needs memory for the old and the new parameters at once."""
# expect: wrong_answer
# pitfall: Removing `donate_argnums`

import jax

LEARNING_RATE = 0.1
DECAY = 0.5


@jax.jit
def sgd_step(params, grads):
    return jax.tree.map(lambda p, g: p - LEARNING_RATE * g, params, grads)


def train(params, grads_seq):
    average = params
    for grads in grads_seq:
        params = sgd_step(params, grads)
        average = jax.tree.map(lambda a, p: DECAY * a + (1 - DECAY) * p, average, params)
    return params, average
