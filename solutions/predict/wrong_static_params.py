"""Marks params static: a dict is not hashable, so jit refuses it (and new weights would retrace anyway)."""
# expect: runtime_error

from functools import partial

import jax


@partial(jax.jit, static_argnums=0)
def _predict(params, x):
    return jax.nn.relu(x @ params["w"] + params["b"])


def predict(params, x):
    return _predict(params, x)
