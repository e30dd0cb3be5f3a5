"""Builds both operands and adds them with jnp to read the result's dtype: the right name, but
found by running JAX (each new pair traces and compiles jnp.add), not predicted."""
# expect: wrong_answer
# pitfall: Running JAX to find out.

import jax.numpy as jnp


def operand(text):
    if text.endswith("]"):
        dtype, dims = text[:-1].split("[")
        return jnp.zeros(tuple(int(n) for n in dims.split(",") if n), dtype=dtype)
    if text in ("True", "False"):
        return text == "True"
    return float(text) if "." in text else int(text)


def predict_promotion(a, b):
    return str(jnp.add(operand(a), operand(b)).dtype)
