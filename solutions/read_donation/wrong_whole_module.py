"""Reads every %argN declaration in the whole module, keyed by its name: a private function's own unmarked %arg0,
%arg1, ... come later in the text and overwrite main's marked arguments of the same name."""
# expect: wrong_answer by test_modules_with_private_functions
# pitfall: Searching the whole module.

import re

DONATION_MARKS = ("tf.aliasing_output", "jax.buffer_donor")


def donated_arguments(stablehlo):
    marked = {}
    # Each declaration "%argN: type {attributes}" runs up to the next comma or closing parenthesis.
    for number, declaration in re.findall(r"%arg(\d+):([^,)]*)", stablehlo):
        marked[int(number)] = any(mark in declaration for mark in DONATION_MARKS)
    return sorted(position for position, donated in marked.items() if donated)
