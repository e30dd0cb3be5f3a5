"""Exports for the shapes of one example (n=16, k=3): the artifact refuses every other pair of
lengths, and its in_avals are concrete, not n and k."""
# expect: wrong_answer
# pitfall: A concrete shape.

import jax
import jax.numpy as jnp


def window_residual(x, w):
    # Given: keep it as it is. out[t] = x[t + k - 1] - sum_j w[j] * x[t + j], for t < n - k + 1.
    n, k = x.shape[0], w.shape[0]
    windows = jnp.arange(n - k + 1)[:, None] + jnp.arange(k)[None, :]
    return x[k - 1 :] - x[windows] @ w


def export_constrained():
    specs = (jax.ShapeDtypeStruct((16,), jnp.float32), jax.ShapeDtypeStruct((3,), jnp.float32))
    return jax.export.export(jax.jit(window_residual))(*specs).serialize(vjp_order=1)
