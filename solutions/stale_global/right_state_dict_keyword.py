"""Holds the setting in a dict and passes it by keyword to a function jitted at import, computing
in float32 and casting back: a keyword argument is traced just like a positional one."""

import jax
import jax.numpy as jnp

_settings = {"temperature": 1.0}


def set_temperature(t):
    _settings["temperature"] = t


@jax.jit
def _tempered(logits, *, temperature):
    wide = logits.astype(jnp.float32) / temperature
    return jax.nn.softmax(wide, axis=-1).astype(logits.dtype)


def scaled_softmax(logits):
    return _tempered(logits, temperature=_settings["temperature"])
