"""Blames the rebinding of the global and keeps the temperature in a mutable dict instead, which the jitted
body still reads: the dict entry is read only while jit traces, so shapes seen before keep the temperature of
their first call.

Mutating a container rather than rebinding a name changes nothing for jit: whatever the body reads that is not
an argument becomes a constant of the trace.
"""
# expect: wrong_answer by test_a_new_temperature_on_a_seen_shape
# pitfall: Reading settings inside the jitted body

import jax

SETTINGS = {"temperature": 1.0}


def set_temperature(t):
    SETTINGS["temperature"] = float(t)


@jax.jit
def scaled_softmax(logits):
    return jax.nn.softmax(logits / SETTINGS["temperature"], axis=-1)
