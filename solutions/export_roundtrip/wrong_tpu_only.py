"""Exports for the TPU only: the artifact refuses to run on the CPU where it is loaded."""
# expect: wrong_answer
# pitfall: Ignoring part of the spec, or the platform.

import jax


def export_roundtrip(f, spec):
    return jax.export.export(jax.jit(f), platforms=("tpu",))(spec).serialize()
