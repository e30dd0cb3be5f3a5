"""Makes the temperature a parameter whose default is the global: a default is evaluated once,
when the function is defined, so every call still uses the temperature of import time."""
# expect: wrong_answer
# pitfall: A default argument

import jax

TEMPERATURE = 1.0


def set_temperature(t):
    global TEMPERATURE
    TEMPERATURE = float(t)


@jax.jit
def scaled_softmax(logits, temperature=TEMPERATURE):
    return jax.nn.softmax(logits / temperature, axis=-1)
