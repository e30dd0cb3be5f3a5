"""Opens jit and cond bodies and walks them too: an operand that the body ignores counts as
unused, where the contract takes every operand of a top-level equation as read."""
# expect: wrong_answer
# pitfall: Opening nested jaxprs.

import jax
from jax.extend.core import Literal


def needed_inputs(jaxpr, wanted):
    """For each input of jaxpr, whether the outputs flagged in wanted depend on it."""
    needed = {v for v, w in zip(jaxpr.outvars, wanted, strict=True) if w and not isinstance(v, Literal)}
    for equation in reversed(jaxpr.eqns):
        outs = [v in needed for v in equation.outvars]
        if not any(outs):
            continue
        name = equation.primitive.name
        if name == "jit":
            reads = needed_inputs(equation.params["jaxpr"].jaxpr, outs)
        elif name == "cond":
            per_branch = [needed_inputs(b.jaxpr, outs) for b in equation.params["branches"]]
            reads = [True] + [any(column) for column in zip(*per_branch, strict=True)]
        else:
            reads = [True] * len(equation.invars)
        needed.update(v for v, r in zip(equation.invars, reads, strict=True) if r and not isinstance(v, Literal))
    return [v in needed for v in jaxpr.invars]


def used_inputs(f, *args):
    jaxpr = jax.make_jaxpr(f)(*args).jaxpr
    return needed_inputs(jaxpr, [True] * len(jaxpr.outvars))
