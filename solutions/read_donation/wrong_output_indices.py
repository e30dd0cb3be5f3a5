"""Takes the N of tf.aliasing_output = N for the argument's position: N is the index of the
output whose buffer the argument becomes, not where the argument stands."""
# expect: wrong_answer
# pitfall: Reading N as the argument's position.

import re


def donated_arguments(stablehlo):
    main = next(line for line in stablehlo.splitlines() if "func.func public @main(" in line)
    pieces = re.split(r"%arg\d+:", main.split(") -> ")[0])[1:]
    positions = set()
    for position, piece in enumerate(pieces):
        alias = re.search(r"tf\.aliasing_output = (\d+)", piece)
        if alias:
            positions.add(int(alias.group(1)))
        elif "jax.buffer_donor" in piece:
            positions.add(position)
    return sorted(positions)
