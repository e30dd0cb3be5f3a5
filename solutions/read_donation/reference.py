"""Reference solution: the positions of main's arguments that carry a donation attribute."""

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
