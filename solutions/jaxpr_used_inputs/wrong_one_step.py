"""Follows one step only: an input counts when it is an output or an operand of an equation
that gives an output, but not when it reaches the outputs through a chain of equations."""
# expect: wrong_answer
# pitfall: Stopping one step short.

import jax
from jax.extend.core import Literal


def used_inputs(f, *args):
    jaxpr = jax.make_jaxpr(f)(*args).jaxpr
    outputs = [v for v in jaxpr.outvars if not isinstance(v, Literal)]
    close = list(outputs)
    for equation in jaxpr.eqns:
        if any(v is out for v in equation.outvars for out in outputs):
            close.extend(v for v in equation.invars if not isinstance(v, Literal))
    return [any(v is c for c in close) for v in jaxpr.invars]
