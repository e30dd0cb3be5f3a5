"""Reference solution: export jax.jit(f) for spec and serialize the Exported to bytes.

jax.export.export takes a jitted function and returns an exporter, which lowers it for the abstract arguments
it is given (here spec, a shape and a dtype with no data) into an Exported: a StableHLO module together with
its input and output types and the platforms it was built for. serialize() turns that into bytes that need
neither the Python source of f nor the process that made them, and jax.export.deserialize turns them back into
an Exported whose call runs the same program. Exporting for spec exactly as given and for the default platform
is what makes the bytes run on the grader's arrays; any other dtype or shape would be refused there.
"""

import jax


def export_roundtrip(f, spec):
    return jax.export.export(jax.jit(f))(spec).serialize()
