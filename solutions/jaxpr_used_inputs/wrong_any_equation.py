"""Calls an input used when any equation reads it: an intermediate that is computed and then
discarded still makes its inputs count."""
# expect: wrong_answer
# pitfall: Counting every equation.

import jax
from jax.extend.core import Literal


def used_inputs(f, *args):
    jaxpr = jax.make_jaxpr(f)(*args).jaxpr
    read = [v for v in jaxpr.outvars if not isinstance(v, Literal)]
    for equation in jaxpr.eqns:
        read.extend(v for v in equation.invars if not isinstance(v, Literal))
    return [any(v is r for r in read) for v in jaxpr.invars]
