"""Takes a Python scalar argument for a constant baked into the trace: when only its value changes (0.5, then
1.5) it answers "static", but jit keys a Python scalar on its weak type alone, so the second call is a hit."""
# expect: wrong_answer by test_new_values_are_a_hit
# pitfall: Values.

import re

ARRAY = re.compile(r"^(~?)([a-z0-9]+)\[([0-9,]*)\]$")
PYTHON_SCALARS = {bool: ("bool", False), int: ("int32", True), float: ("float32", True)}
CHECKED_IN_ORDER = ("shape", "dtype", "weak_type")


def structure(tree):
    """The tree with every leaf replaced by '*': dicts by their sorted keys, as JAX flattens them."""
    if tree is None:
        return ("None",)
    if type(tree) in (tuple, list):
        return (type(tree).__name__, tuple(structure(child) for child in tree))
    if type(tree) is dict:
        return ("dict", tuple((key, structure(tree[key])) for key in sorted(tree)))
    return "*"


def leaves(tree):
    """The leaves in the order JAX flattens the tree (dict values by sorted key)."""
    if tree is None:
        return []
    if type(tree) in (tuple, list):
        return [leaf for child in tree for leaf in leaves(child)]
    if type(tree) is dict:
        return [leaf for key in sorted(tree) for leaf in leaves(tree[key])]
    return [tree]


def leaf_type(leaf):
    """(shape, dtype, weak_type) of one leaf: an array's description or a Python scalar."""
    if type(leaf) is str:
        weak, dtype, dims = ARRAY.match(leaf).groups()
        return tuple(int(n) for n in dims.split(",") if n), dtype, weak == "~"
    dtype, weak = PYTHON_SCALARS[type(leaf)]
    return (), dtype, weak


def explain_cache_miss(first, second):
    if structure(first["args"]) != structure(second["args"]):
        return "tree"
    before, now = first["static"], second["static"]
    if type(before) is not type(now) or before != now:
        return "static"
    pairs = list(zip(map(leaf_type, leaves(first["args"])), map(leaf_type, leaves(second["args"])), strict=True))
    for position, part in enumerate(CHECKED_IN_ORDER):
        if any(old[position] != new[position] for old, new in pairs):
            return part
    # A Python scalar is baked into the trace as a constant, so a new value means tracing again.
    for old, new in zip(leaves(first["args"]), leaves(second["args"]), strict=True):
        if type(old) is not str and old != new:
            return "static"
    return "hit"
