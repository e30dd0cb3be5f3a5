"""Names the difference of the first leaf that differs, in flattening order, instead of the
most significant difference over all leaves: with one leaf of a new dtype and a later one of a
new shape it answers "dtype", where the contract ranks "shape" first."""
# expect: wrong_answer
# pitfall: Naming the first leaf you see.

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
    for old, new in pairs:
        for position, part in enumerate(CHECKED_IN_ORDER):
            if old[position] != new[position]:
                return part
    return "hit"
