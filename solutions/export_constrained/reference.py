"""Reference solution: n and k in one scope with n >= k; the jitted function exported and serialized with its VJP.

Shape polymorphism lets one export serve every length: a symbolic dimension stands for any size, and JAX must
prove, while tracing, every fact about shapes the program relies on. window_residual slices n - k + 1 windows,
which only makes sense when n >= k, so that fact is declared as a constraint of the scope in which both
dimensions are made. Making n and k in one symbolic_shape call puts them in the same scope, and the constraint
lets the shape checker see that the slice and the window sums have the same symbolic length; dimensions from
two scopes cannot be compared at all. n >= k is exactly the valid range, where a strict n > k would refuse a
filter as long as the signal. serialize(vjp_order=1) also exports the first-order VJP, so that the
deserialized function can be differentiated without the Python source.
"""

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
    return jax.export.export(jax.jit(window_residual))(*specs).serialize(vjp_order=1)
