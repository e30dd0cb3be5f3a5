"""Clips against jnp.zeros(()), a strongly typed float32: float16 and bfloat16 layers come back as float32."""
# expect: wrong_answer

import jax
import jax.numpy as jnp


@jax.jit
def _predict(params, x):
    return jnp.maximum(x @ params["w"] + params["b"], jnp.zeros(()))


def predict(params, x):
    return _predict(params, x)
