"""Clears JAX's caches whenever the temperature is set, so the global is read again: right
values, but every change of temperature costs a new trace and compile."""
# expect: wrong_answer
# pitfall: Forcing a retrace

import jax

TEMPERATURE = 1.0


def set_temperature(t):
    global TEMPERATURE
    TEMPERATURE = t
    jax.clear_caches()


@jax.jit
def scaled_softmax(logits):
    return jax.nn.softmax(logits / TEMPERATURE, axis=-1)
