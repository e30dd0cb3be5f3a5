"""Asks JAX's own dead-code elimination which inputs survive: it prunes inside jit, cond and
scan bodies as well, so an operand that a body ignores comes out unused."""
# expect: wrong_answer

import jax
from jax._src.interpreters import partial_eval as pe


def used_inputs(f, *args):
    jaxpr = jax.make_jaxpr(f)(*args).jaxpr
    _, used = pe.dce_jaxpr(jaxpr, [True] * len(jaxpr.outvars))
    return [bool(u) for u in used]
