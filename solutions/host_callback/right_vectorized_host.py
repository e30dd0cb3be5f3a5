"""Lets jax.vmap hand the host function the whole batch (vmap_method="expand_dims"), and makes the
host function batch-aware instead: the rank of one example is known while tracing, so every
leading axis beyond it is a batch axis, and each example is ranked on its own, in one host call."""

import math

import jax
import jax.numpy as jnp
import numpy as np


def host_dense_rank(x):
    """NumPy, on the host: for each element, how many distinct values of x are smaller."""
    _, inverse = np.unique(np.asarray(x), return_inverse=True)
    return inverse.reshape(np.shape(x))


def dense_rank(x):
    example_ndim = jnp.ndim(x)

    def host(batch):
        batch = np.asarray(batch)
        batch_shape = batch.shape[: batch.ndim - example_ndim]
        example_shape = batch.shape[batch.ndim - example_ndim :]
        examples = batch.reshape((math.prod(batch_shape), *example_shape))
        ranks = np.zeros(examples.shape, dtype=np.int32)
        for i, example in enumerate(examples):
            ranks[i] = host_dense_rank(example)
        return ranks.reshape(batch.shape)

    spec = jax.ShapeDtypeStruct(jnp.shape(x), jnp.int32)
    return jax.pure_callback(host, spec, x, vmap_method="expand_dims")
