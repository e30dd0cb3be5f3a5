"""Counts only tf.aliasing_output: a donated argument that an output can take only by its
number of elements (another shape or dtype) is marked jax.buffer_donor = true instead."""
# expect: wrong_answer
# pitfall: Looking for one attribute only.

import re


def donated_arguments(stablehlo):
    main = next(line for line in stablehlo.splitlines() if "func.func public @main(" in line)
    pieces = re.split(r"%arg\d+:", main.split(") -> ")[0])[1:]
    return [position for position, piece in enumerate(pieces) if "tf.aliasing_output" in piece]
