"""Lists the aliased arguments first and the buffer donors after them: right positions, but
not sorted when a donor stands before an aliased argument."""
# expect: wrong_answer

import re


def donated_arguments(stablehlo):
    main = next(line for line in stablehlo.splitlines() if "func.func public @main(" in line)
    pieces = re.split(r"%arg\d+:", main.split(") -> ")[0])[1:]
    aliased = [position for position, piece in enumerate(pieces) if "tf.aliasing_output" in piece]
    donors = [position for position, piece in enumerate(pieces) if "jax.buffer_donor" in piece]
    return aliased + donors
