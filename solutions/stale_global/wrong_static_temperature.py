"""Passes the temperature as a static argument: the values are right, but every new
temperature is a new cache key, so jit traces and compiles again for each value."""
# expect: wrong_answer
# pitfall: Making the temperature static

import functools

import jax

TEMPERATURE = 1.0


def set_temperature(t):
    global TEMPERATURE
    TEMPERATURE = float(t)


@functools.partial(jax.jit, static_argnums=1)
def _softmax(logits, temperature):
    return jax.nn.softmax(logits / temperature, axis=-1)


def scaled_softmax(logits):
    return _softmax(logits, TEMPERATURE)
