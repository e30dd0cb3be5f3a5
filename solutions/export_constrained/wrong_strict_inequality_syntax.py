"""Writes the constraint n >= k as the strict inequality "n > k - 1": JAX's constraint parser knows only >=,
<= and ==, so symbolic_shape raises and nothing is exported."""
# expect: runtime_error by test_bytes_run_for_two_lengths
# pitfall: Constraint syntax.

import jax
import jax.numpy as jnp


def window_residual(x, w):
    # Given: keep it as it is. out[t] = x[t + k - 1] - sum_j w[j] * x[t + j], for t < n - k + 1.
    n, k = x.shape[0], w.shape[0]
    windows = jnp.arange(n - k + 1)[:, None] + jnp.arange(k)[None, :]
    return x[k - 1 :] - x[windows] @ w


def export_constrained():
    n, k = jax.export.symbolic_shape("n, k", constraints=["n > k - 1"])
    specs = (jax.ShapeDtypeStruct((n,), jnp.float32), jax.ShapeDtypeStruct((k,), jnp.float32))
    return jax.export.export(jax.jit(window_residual))(*specs).serialize(vjp_order=1)
