"""Looks only at the jaxpr's outputs: an input counts only when it is itself an output, so an
input that reaches an output through equations is missed."""
# expect: wrong_answer

import jax


def used_inputs(f, *args):
    jaxpr = jax.make_jaxpr(f)(*args).jaxpr
    return [any(v is out for out in jaxpr.outvars) for v in jaxpr.invars]
