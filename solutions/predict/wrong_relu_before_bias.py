"""Applies relu before adding the bias: relu(x @ w) + b, which can be negative."""
# expect: wrong_answer

import jax


@jax.jit
def _predict(params, x):
    return jax.nn.relu(x @ params["w"]) + params["b"]


def predict(params, x):
    return _predict(params, x)
