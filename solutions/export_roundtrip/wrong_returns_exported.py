"""Stops before serializing: returns the Exported object, which cannot be stored or shipped."""
# expect: wrong_answer
# pitfall: Returning the `Exported` object.

import jax


def export_roundtrip(f, spec):
    return jax.export.export(jax.jit(f))(spec)
