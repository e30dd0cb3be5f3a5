"""Normalises along the first axis instead of the last: the same for a vector, wrong for
every batch of rows."""
# expect: wrong_answer
# pitfall: The wrong axis

import jax

TEMPERATURE = 1.0


def set_temperature(t):
    global TEMPERATURE
    TEMPERATURE = float(t)


@jax.jit
def _softmax(logits, temperature):
    return jax.nn.softmax(logits / temperature, axis=0)


def scaled_softmax(logits):
    return _softmax(logits, TEMPERATURE)
