"""Reference solution: cut out main's argument list, split it per argument, keep those marked donated.

When jax.jit lowers with donate_argnums, each donated argument of the StableHLO main function gets an
attribute saying so. If an output has the same shape and dtype, the argument is paired with it as
tf.aliasing_output = N, where N is the index of that output and not the argument's own position. If no output
fits exactly, the argument is only offered as jax.buffer_donor = true, for XLA to reuse as it can. So both
marks mean donated. The reference takes main's argument list by matching parentheses, so that nothing else in
the module is read, splits it at each %argN, which numbers the arguments in order, and keeps the positions
whose attributes carry either mark, sorted as they come. Splitting at the argument names rather than matching
a tensor type up to its first '>' keeps nested types such as complex tensors intact.
"""

import re

DONATION_MARKS = ("tf.aliasing_output", "jax.buffer_donor")


def main_argument_list(stablehlo):
    """The text between main's opening parenthesis and the one that closes it."""
    opening = "func.func public @main("
    start = stablehlo.index(opening) + len(opening)
    depth, end = 1, start
    while depth:
        depth += {"(": 1, ")": -1}.get(stablehlo[end], 0)
        end += 1
    return stablehlo[start : end - 1]


def donated_arguments(stablehlo):
    # One piece per argument, each with its type and its attribute dictionary.
    pieces = re.split(r"%arg\d+:", main_argument_list(stablehlo))[1:]
    return [position for position, piece in enumerate(pieces) if any(mark in piece for mark in DONATION_MARKS)]
