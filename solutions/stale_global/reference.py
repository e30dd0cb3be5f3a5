"""Reference solution: the temperature is an ordinary, traced argument of one function jitted
when the module loads. A Python float is a weakly typed float32[] whatever its value, so every
temperature shares the cache entry of a shape and dtype, and dividing by it keeps the logits'
dtype."""

import jax

TEMPERATURE = 1.0


def set_temperature(t):
    global TEMPERATURE
    TEMPERATURE = float(t)


@jax.jit
def softmax_at(logits, temperature):
    return jax.nn.softmax(logits / temperature, axis=-1)


def scaled_softmax(logits):
    return softmax_at(logits, TEMPERATURE)
