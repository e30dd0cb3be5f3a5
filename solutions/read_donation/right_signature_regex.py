"""Another right way: a regex over main's signature line, reading each %argN and its attributes."""

import re

ARGUMENT = re.compile(r"%arg(\d+): tensor<(?:[^<>]|<[^<>]*>)*>(?: \{([^}]*)\})?")


def donated_arguments(stablehlo):
    main = next(line for line in stablehlo.splitlines() if "func.func public @main(" in line)
    arguments = main.split(") -> ")[0]
    donated = set()
    for number, attributes in ARGUMENT.findall(arguments):
        if attributes and ("tf.aliasing_output" in attributes or "jax.buffer_donor" in attributes):
            donated.add(int(number))
    return sorted(donated)
