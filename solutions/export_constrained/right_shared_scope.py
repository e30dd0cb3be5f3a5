"""A second right way: one SymbolicScope holding the constraint, shared by two symbolic_shape
calls (k <= n written the other way round), exported and serialized with its VJP."""

import jax
import jax.numpy as jnp


def window_residual(x, w):
    # Given: keep it as it is. out[t] = x[t + k - 1] - sum_j w[j] * x[t + j], for t < n - k + 1.
    n, k = x.shape[0], w.shape[0]
    windows = jnp.arange(n - k + 1)[:, None] + jnp.arange(k)[None, :]
    return x[k - 1 :] - x[windows] @ w


def export_constrained():
    scope = jax.export.SymbolicScope(["k <= n"])
    (n,) = jax.export.symbolic_shape("n", scope=scope)
    (k,) = jax.export.symbolic_shape("k", scope=scope)
    x_spec = jax.ShapeDtypeStruct((n,), jnp.float32)
    w_spec = jax.ShapeDtypeStruct((k,), jnp.float32)
    exported = jax.export.export(jax.jit(window_residual))(x_spec, w_spec)
    return bytes(exported.serialize(vjp_order=1))
