"""Builds a new jitted lambda on every call so that it sees the current global: right values,
but jax.jit runs during each call and every call traces and compiles from nothing."""
# expect: wrong_answer

import jax

TEMPERATURE = 1.0


def set_temperature(t):
    global TEMPERATURE
    TEMPERATURE = t


def scaled_softmax(logits):
    return jax.jit(lambda x: jax.nn.softmax(x / TEMPERATURE, axis=-1))(logits)
