"""Exports f itself: jax.export.export only accepts a function wrapped by jax.jit."""
# expect: runtime_error

import jax


def export_roundtrip(f, spec):
    return jax.export.export(f)(spec).serialize()
