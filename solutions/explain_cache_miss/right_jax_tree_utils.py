"""Lets JAX's own utilities read the descriptions, without tracing anything: jax.tree.structure
of the two argument trees (the descriptions' leaves are leaves too, and dicts flatten by sorted
key), jax.typeof of the Python scalars (weak floats and ints, strong bools), and the array
descriptions parsed by hand."""

import jax

ORDER = ("shape", "dtype", "weak_type")


def leaf_type(leaf):
    if type(leaf) is not str:
        aval = jax.typeof(leaf)
        return tuple(aval.shape), str(aval.dtype), aval.weak_type
    weak = leaf.startswith("~")
    dtype, dims = leaf.removeprefix("~").removesuffix("]").split("[")
    return tuple(int(n) for n in dims.split(",") if n), dtype, weak


def explain_cache_miss(first, second):
    if jax.tree.structure(first["args"]) != jax.tree.structure(second["args"]):
        return "tree"
    if type(first["static"]) is not type(second["static"]) or first["static"] != second["static"]:
        return "static"
    before = [leaf_type(leaf) for leaf in jax.tree.leaves(first["args"])]
    now = [leaf_type(leaf) for leaf in jax.tree.leaves(second["args"])]
    for position, part in enumerate(ORDER):
        if any(old[position] != new[position] for old, new in zip(before, now, strict=True)):
            return part
    return "hit"
