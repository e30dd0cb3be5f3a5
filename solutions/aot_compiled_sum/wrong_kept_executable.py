"""Compiles once, for the first array it is given, and keeps that executable for every later call: an array of
another shape or dtype is refused with a TypeError, since a Compiled object never compiles again."""
# expect: runtime_error by test_matches_the_reference_across_lengths_and_dtypes
# pitfall: The executable is bound to one signature.

import jax
import jax.numpy as jnp

_compiled = None


def aot_compiled_sum(x):
    global _compiled
    if _compiled is None:
        _compiled = jax.jit(jnp.sum).lower(x).compile()
    return _compiled(x)
