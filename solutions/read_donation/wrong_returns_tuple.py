"""Returns the right positions as a tuple: the contract asks for a list."""
# expect: wrong_answer

import re


def donated_arguments(stablehlo):
    main = next(line for line in stablehlo.splitlines() if "func.func public @main(" in line)
    pieces = re.split(r"%arg\d+:", main.split(") -> ")[0])[1:]
    return tuple(i for i, piece in enumerate(pieces) if "tf.aliasing_output" in piece or "jax.buffer_donor" in piece)
