"""Puts every operand into a set, literals included: a Literal (the 2.0 of x * 2.0) cannot be
hashed, so the walk raises TypeError."""
# expect: runtime_error
# pitfall: Hashing literals.

import jax


def used_inputs(f, *args):
    jaxpr = jax.make_jaxpr(f)(*args).jaxpr
    needed = set(jaxpr.outvars)
    for equation in reversed(jaxpr.eqns):
        if needed.intersection(equation.outvars):
            needed.update(equation.invars)
    return [v in needed for v in jaxpr.invars]
