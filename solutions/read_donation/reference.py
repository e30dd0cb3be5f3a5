"""Reference solution: cut out main's argument list, split it per argument, keep those marked donated.

When jax.jit lowers with donate_argnums, it pairs each donated leaf with an output that can take its buffer
and writes the pairing into the attributes of the StableHLO main function's argument. An output of the same
shape and dtype gives tf.aliasing_output = N, where N is the index of that output and not the argument's own
position; an output with only the same number of elements gives jax.buffer_donor = true instead. Both marks
are donations, while a donated argument that no output can take gets no mark at all, and main's arguments are
the flattened leaves that remain after unused ones are dropped, so their positions are the ones to report. The
reference takes main's argument list by matching parentheses, so nothing else in the module is read, splits it
at each %argN, and keeps the positions whose attributes carry either mark, already in order. Splitting at the
argument names rather than matching a tensor type up to its first '>' keeps nested types such as complex
tensors intact.
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
