"""Reference solution: walk the top-level equations backwards from the outputs, marking what they depend on.

A jaxpr is in order: every variable is defined before it is used, so going through the equations from the last
to the first sees each result's users before the result's own equation. The set of needed variables starts
from the outputs, and whenever an equation defines a needed variable, all of its operands become needed too.
That is a liveness analysis, the same idea JAX's dead code elimination rests on, here with each equation
treated as a unit, so a jit, cond or scan body is not opened. Literals are constants that no input can flow
into, so they are skipped, and an input is used exactly when it ends up in the needed set. One answer per
invar, in order, matches the jaxpr's own view of the arguments, where a pytree argument has one invar per
leaf.
"""

import jax
from jax.extend.core import Literal


def used_inputs(f, *args):
    jaxpr = jax.make_jaxpr(f)(*args).jaxpr
    needed = {v for v in jaxpr.outvars if not isinstance(v, Literal)}
    for equation in reversed(jaxpr.eqns):
        if any(v in needed for v in equation.outvars):
            needed.update(v for v in equation.invars if not isinstance(v, Literal))
    return [v in needed for v in jaxpr.invars]
