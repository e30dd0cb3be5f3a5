"""Stores the temperature as a float32 array and divides by it as it is: a strong float32
promotes float16 and bfloat16 logits, so their results come back in float32."""
# expect: wrong_answer
# pitfall: Changing the dtype

import jax
import jax.numpy as jnp

TEMPERATURE = jnp.float32(1.0)


def set_temperature(t):
    global TEMPERATURE
    TEMPERATURE = jnp.float32(t)


@jax.jit
def _softmax(logits, temperature):
    return jax.nn.softmax(logits / temperature, axis=-1)


def scaled_softmax(logits):
    return _softmax(logits, TEMPERATURE)
