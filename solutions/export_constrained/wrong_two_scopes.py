"""Makes n and k in two symbolic_shape calls: two scopes, so the constraint on n says nothing
about the k of the other scope and the export is refused (invalid mixing of symbolic scopes)."""
# expect: runtime_error
# pitfall: Two scopes.

import jax
import jax.numpy as jnp


def window_residual(x, w):
    # Given: keep it as it is. out[t] = x[t + k - 1] - sum_j w[j] * x[t + j], for t < n - k + 1.
    n, k = x.shape[0], w.shape[0]
    windows = jnp.arange(n - k + 1)[:, None] + jnp.arange(k)[None, :]
    return x[k - 1 :] - x[windows] @ w


def export_constrained():
    (k,) = jax.export.symbolic_shape("k")
    (n,) = jax.export.symbolic_shape("n", constraints=["n >= k"])
    specs = (jax.ShapeDtypeStruct((n,), jnp.float32), jax.ShapeDtypeStruct((k,), jnp.float32))
    return jax.export.export(jax.jit(window_residual))(*specs).serialize(vjp_order=1)
