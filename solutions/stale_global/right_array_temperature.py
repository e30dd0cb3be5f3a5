"""Keeps the temperature as a float32[] array and casts it to the logits' dtype inside the
jitted function: a strong float32[] is one cache entry whatever its value, and the cast keeps
float16 and bfloat16 results in their dtype."""

import jax
import jax.numpy as jnp

_temperature = jnp.float32(1.0)


def set_temperature(t):
    global _temperature
    _temperature = jnp.float32(t)


@jax.jit
def _softmax(logits, temperature):
    return jax.nn.softmax(logits / temperature.astype(logits.dtype), axis=-1)


def scaled_softmax(logits):
    return _softmax(logits, _temperature)
