"""Serializes the StableHLO text of the lowering: bytes, but not a serialized Exported."""
# expect: wrong_answer
# pitfall: Serializing the wrong thing.

import jax


def export_roundtrip(f, spec):
    return jax.jit(f).lower(spec).as_text().encode()
