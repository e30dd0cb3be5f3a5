"""Reference solution: the average gets buffers of its own before the first step; only the old average is donated.

Donating an argument to a jitted function lets XLA write the outputs into its buffers, and JAX then marks the
donated arrays as deleted, so any later read of them raises. In the starter the average starts as the very
same arrays as the parameters, so the first sgd_step deletes what the average still holds. The fix is to give
the average real copies of every leaf before the loop (a copy of the dict alone would hold the same arrays),
after which sgd_step may keep donating the parameters, which nothing reads afterwards. The average's own
update is jitted too and donates the old average, the one array that is finished with at that point, never the
new parameters the next step still needs. Both programs then update their state in place, and the values are
those of the plain loop.
"""

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
