"""Drops jax.jit to get fresh values: right results, but softmax then runs operation by
operation, each one compiled on its own for every new shape."""
# expect: wrong_answer
# pitfall: Dropping `jax.jit`

import jax

TEMPERATURE = 1.0


def set_temperature(t):
    global TEMPERATURE
    TEMPERATURE = t


def scaled_softmax(logits):
    return jax.nn.softmax(logits / TEMPERATURE, axis=-1)
