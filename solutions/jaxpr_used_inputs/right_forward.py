"""A right way too: propagate forwards, giving each variable the set of input positions it was
computed from, then read the sets of the outputs."""

import jax
from jax.extend.core import Literal


def used_inputs(f, *args):
    jaxpr = jax.make_jaxpr(f)(*args).jaxpr
    sources = {v: {i} for i, v in enumerate(jaxpr.invars)}
    for equation in jaxpr.eqns:
        came_from = set()
        for v in equation.invars:
            if not isinstance(v, Literal):
                came_from |= sources.get(v, set())
        for v in equation.outvars:
            sources[v] = came_from
    reached = set()
    for v in jaxpr.outvars:
        if not isinstance(v, Literal):
            reached |= sources.get(v, set())
    return [i in reached for i in range(len(jaxpr.invars))]
