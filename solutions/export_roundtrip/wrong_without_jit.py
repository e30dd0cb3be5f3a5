"""Exports f itself: jax.export.export only accepts a function wrapped by jax.jit."""
# expect: runtime_error
# pitfall: Exporting an un-jitted function.

import jax


def export_roundtrip(f, spec):
    return jax.export.export(f)(spec).serialize()
