"""Returns 1 and 0 instead of True and False: the right flags, the wrong type."""
# expect: wrong_answer
# pitfall: `0` and `1` for `False` and `True`.

import jax
from jax.extend.core import Literal


def used_inputs(f, *args):
    jaxpr = jax.make_jaxpr(f)(*args).jaxpr
    needed = {v for v in jaxpr.outvars if not isinstance(v, Literal)}
    for equation in reversed(jaxpr.eqns):
        if any(v in needed for v in equation.outvars):
            needed.update(v for v in equation.invars if not isinstance(v, Literal))
    return [int(v in needed) for v in jaxpr.invars]
