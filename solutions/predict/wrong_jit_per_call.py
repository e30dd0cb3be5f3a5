"""Jits a new lambda on every call: an empty cache each time, so every call traces and compiles again."""
# expect: wrong_answer

import jax


def predict(params, x):
    return jax.jit(lambda p, v: jax.nn.relu(v @ p["w"] + p["b"]))(params, x)
