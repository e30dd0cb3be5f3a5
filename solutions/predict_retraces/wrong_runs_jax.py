"""Builds every argument and calls a jitted function to count its traces: the right number,
but found by running JAX, not predicted."""
# expect: wrong_answer
# pitfall: Running the calls

import jax
import jax.numpy as jnp

from_python = {"True": True, "False": False}


def argument(call):
    if "[" in call:
        dtype, dims = call[:-1].split("[")
        return jnp.zeros(tuple(int(n) for n in dims.split(",") if n), dtype=dtype)
    if call in from_python:
        return from_python[call]
    return float(call) if any(mark in call for mark in ".en") else int(call)


def predict_retraces(calls):
    traces = []

    @jax.jit
    def f(x):
        traces.append(1)
        return x

    for call in calls:
        f(argument(call))
    return len(traces)
