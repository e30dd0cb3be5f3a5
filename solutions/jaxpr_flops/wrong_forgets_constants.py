"""Binds only the jaxpr's input variables in the environment and never its constvars: a function that closes
over a NumPy constant (or a jitted helper or scan body with one) reads a variable that holds no value.

Everything else follows the rules: jit equations are opened, cond runs the selected branch, scans count their
body once per iteration. Only closed.consts, and each inner ClosedJaxpr's consts, are left out.
"""
# expect: runtime_error by test_constants_literals_and_inputs_as_outputs
# pitfall: Forgetting the constants

import math

import jax
import jax.numpy as jnp
from jax.extend.core import Literal

ELEMENTWISE = {"add", "sub", "mul", "div"}


def equation_flops(equation):
    """The FLOPs of one equation that holds no jaxpr."""
    name = equation.primitive.name
    if name in ELEMENTWISE:
        return math.prod(equation.outvars[0].aval.shape)
    if name == "dot_general":
        (contracting, _), _ = equation.params["dimension_numbers"]
        lhs_shape = equation.invars[0].aval.shape
        contracted = math.prod(lhs_shape[d] for d in contracting)
        return 2 * math.prod(equation.outvars[0].aval.shape) * contracted
    return 0


def static_flops(jaxpr):
    """The FLOPs of a jaxpr without a cond: nested jits and scans walked, nothing evaluated."""
    total = 0
    for equation in jaxpr.eqns:
        name = equation.primitive.name
        if name in ("jit", "pjit"):
            total += static_flops(equation.params["jaxpr"].jaxpr)
        elif name == "scan":
            total += equation.params["length"] * static_flops(equation.params["jaxpr"].jaxpr)
        else:
            total += equation_flops(equation)
    return total


def evaluate(jaxpr, consts, args):
    env = {}

    def read(v):
        return v.val if isinstance(v, Literal) else env[v]

    for v, value in zip(jaxpr.invars, args, strict=True):
        env[v] = value
    flops = 0
    for equation in jaxpr.eqns:
        invals = [read(v) for v in equation.invars]
        name = equation.primitive.name
        if name in ("jit", "pjit"):
            inner = equation.params["jaxpr"]
            outvals, inner_flops = evaluate(inner.jaxpr, inner.consts, invals)
            flops += inner_flops
        elif name == "cond":
            branches = equation.params["branches"]
            index = min(max(int(invals[0]), 0), len(branches) - 1)
            branch = branches[index]
            outvals, inner_flops = evaluate(branch.jaxpr, branch.consts, invals[1:])
            flops += inner_flops
        else:
            result = equation.primitive.bind(*invals, **equation.params)
            outvals = result if equation.primitive.multiple_results else [result]
            if name == "scan":
                flops += equation.params["length"] * static_flops(equation.params["jaxpr"].jaxpr)
            else:
                flops += equation_flops(equation)
        for v, value in zip(equation.outvars, outvals, strict=True):
            env[v] = value
    return [read(v) for v in jaxpr.outvars], flops


def jaxpr_flops(f, *args):
    closed = jax.make_jaxpr(f)(*args)
    leaves = jax.tree_util.tree_leaves(args)
    outputs, flops = evaluate(closed.jaxpr, closed.consts, leaves)
    avals = closed.out_avals
    return [jnp.asarray(value, dtype=aval.dtype) for value, aval in zip(outputs, avals, strict=True)], flops
