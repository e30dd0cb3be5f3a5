"""Matches a tensor type as tensor<...> up to the first '>': a complex argument's type,
tensor<2xcomplex<f32>>, nests brackets, so its attributes are never seen."""
# expect: wrong_answer
# pitfall: Matching a tensor type up to the first `>`.

import re

ARGUMENT = re.compile(r"%arg(\d+): tensor<[^>]*>(?: \{([^}]*)\})?")


def donated_arguments(stablehlo):
    main = next(line for line in stablehlo.splitlines() if "func.func public @main(" in line)
    return sorted(
        int(number)
        for number, attributes in ARGUMENT.findall(main)
        if "tf.aliasing_output" in attributes or "jax.buffer_donor" in attributes
    )
