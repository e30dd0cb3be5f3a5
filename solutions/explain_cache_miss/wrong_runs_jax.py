"""Builds both calls for real and counts the traces of a jitted function, then names the part
with jax.tree.structure and jax.typeof: the right answers, but found by tracing and compiling,
not predicted from the descriptions."""
# expect: wrong_answer
# pitfall: Running the calls.

import jax
import jax.numpy as jnp


def build(tree):
    if tree is None:
        return None
    if type(tree) in (tuple, list):
        return type(tree)(build(child) for child in tree)
    if type(tree) is dict:
        return {key: build(child) for key, child in tree.items()}
    if type(tree) is not str:
        return tree
    weak = tree.startswith("~")
    dtype, dims = tree.removeprefix("~").removesuffix("]").split("[")
    shape = tuple(int(n) for n in dims.split(",") if n)
    return jnp.full(shape, 1 if dtype == "int32" else 1.0) if weak else jnp.zeros(shape, dtype)


def explain_cache_miss(first, second):
    traces = []

    def f(args, static):
        traces.append(1)

    g = jax.jit(f, static_argnums=1)
    before, now = build(first["args"]), build(second["args"])
    g(before, first["static"])
    g(now, second["static"])
    if len(traces) == 1:
        return "hit"
    if jax.tree.structure(before) != jax.tree.structure(now):
        return "tree"
    if type(first["static"]) is not type(second["static"]) or first["static"] != second["static"]:
        return "static"
    pairs = [(jax.typeof(a), jax.typeof(b)) for a, b in zip(jax.tree.leaves(before), jax.tree.leaves(now), strict=True)]
    for part in ("shape", "dtype", "weak_type"):
        if any(getattr(a, part) != getattr(b, part) for a, b in pairs):
            return part
    return "hit"
