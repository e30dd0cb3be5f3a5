"""Constrains n >= k + 1 (a strict n > k): it exports, but refuses a filter as long as the
signal, a valid input (the call on every valid pair of lengths, n = k among them)."""
# expect: wrong_answer
# pitfall: A constraint that is too strict.

import jax
import jax.numpy as jnp


def window_residual(x, w):
    # Given: keep it as it is. out[t] = x[t + k - 1] - sum_j w[j] * x[t + j], for t < n - k + 1.
    n, k = x.shape[0], w.shape[0]
    windows = jnp.arange(n - k + 1)[:, None] + jnp.arange(k)[None, :]
    return x[k - 1 :] - x[windows] @ w


def export_constrained():
    n, k = jax.export.symbolic_shape("n, k", constraints=["n >= k + 1"])
    specs = (jax.ShapeDtypeStruct((n,), jnp.float32), jax.ShapeDtypeStruct((k,), jnp.float32))
    return jax.export.export(jax.jit(window_residual))(*specs).serialize(vjp_order=1)
