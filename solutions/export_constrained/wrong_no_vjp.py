"""Serializes without vjp_order: the bytes run, but carry no VJP, so the deserialized export
cannot be differentiated (the "carries its VJP" clause of Checked)."""
# expect: wrong_answer
# pitfall: Serializing without the VJP.

import jax
import jax.numpy as jnp


def window_residual(x, w):
    # Given: keep it as it is. out[t] = x[t + k - 1] - sum_j w[j] * x[t + j], for t < n - k + 1.
    n, k = x.shape[0], w.shape[0]
    windows = jnp.arange(n - k + 1)[:, None] + jnp.arange(k)[None, :]
    return x[k - 1 :] - x[windows] @ w


def export_constrained():
    n, k = jax.export.symbolic_shape("n, k", constraints=["n >= k"])
    specs = (jax.ShapeDtypeStruct((n,), jnp.float32), jax.ShapeDtypeStruct((k,), jnp.float32))
    return jax.export.export(jax.jit(window_residual))(*specs).serialize()
