"""Answers per Python argument (used when any of its leaves is), not per input variable of the
jaxpr: a tuple or dict argument is several inputs and gets one answer."""
# expect: wrong_answer
# pitfall: One answer per Python argument.

import jax
from jax.extend.core import Literal


def used_inputs(f, *args):
    jaxpr = jax.make_jaxpr(f)(*args).jaxpr
    needed = {v for v in jaxpr.outvars if not isinstance(v, Literal)}
    for equation in reversed(jaxpr.eqns):
        if any(v in needed for v in equation.outvars):
            needed.update(v for v in equation.invars if not isinstance(v, Literal))
    flags = [v in needed for v in jaxpr.invars]
    answer, start = [], 0
    for arg in args:
        count = len(jax.tree_util.tree_leaves(arg))
        answer.append(any(flags[start : start + count]))
        start += count
    return answer
