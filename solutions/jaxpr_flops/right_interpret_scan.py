"""A second right way: every higher-order equation is interpreted, scans included. A scan runs
its body once per iteration with this interpreter (slicing the scanned-over operands and stacking
the per-iteration outputs), so its FLOPs are counted as they happen, without a shape-only walk."""

import math

import jax
import jax.numpy as jnp
from jax.extend.core import Literal

RULES = {"add": 1, "sub": 1, "mul": 1, "div": 1}


def flops_of(equation):
    name = equation.primitive.name
    out = equation.outvars[0].aval.shape
    if name in RULES:
        return RULES[name] * math.prod(out)
    if name == "dot_general":
        ((contracting, _), _) = equation.params["dimension_numbers"]
        lhs = equation.invars[0].aval.shape
        return 2 * math.prod(out) * math.prod(lhs[d] for d in contracting)
    return 0


class Interpreter:
    def __init__(self):
        self.flops = 0

    def run(self, closed, args):
        jaxpr = closed.jaxpr
        env = dict(zip(jaxpr.constvars, closed.consts, strict=True))
        env.update(zip(jaxpr.invars, args, strict=True))

        def read(v):
            return v.val if isinstance(v, Literal) else env[v]

        for equation in jaxpr.eqns:
            operands = [read(v) for v in equation.invars]
            results = self.equation(equation, operands)
            env.update(zip(equation.outvars, results, strict=True))
        return [read(v) for v in jaxpr.outvars]

    def equation(self, equation, operands):
        name, params = equation.primitive.name, equation.params
        if name in ("jit", "pjit"):
            return self.run(params["jaxpr"], operands)
        if name == "cond":
            branches = params["branches"]
            index = int(jnp.clip(operands[0], 0, len(branches) - 1))
            return self.run(branches[index], operands[1:])
        if name == "scan":
            return self.scan(params, operands)
        self.flops += flops_of(equation)
        result = equation.primitive.bind(*operands, **params)
        return result if equation.primitive.multiple_results else [result]

    def scan(self, params, operands):
        body, length = params["jaxpr"], params["length"]
        n_consts, n_carry = params["num_consts"], params["num_carry"]
        consts = operands[:n_consts]
        carry = operands[n_consts : n_consts + n_carry]
        xs = operands[n_consts + n_carry :]
        order = range(length - 1, -1, -1) if params["reverse"] else range(length)
        ys = {}
        for i in order:
            outs = self.run(body, [*consts, *carry, *(x[i] for x in xs)])
            carry, ys[i] = outs[:n_carry], outs[n_carry:]
        stacked = []
        for j, aval in enumerate(body.out_avals[n_carry:]):
            if length == 0:
                stacked.append(jnp.zeros((0, *aval.shape), aval.dtype))
            else:
                stacked.append(jnp.stack([jnp.asarray(ys[i][j], aval.dtype) for i in range(length)]))
        return [*carry, *stacked]


def jaxpr_flops(f, *args):
    closed = jax.make_jaxpr(f)(*args)
    interpreter = Interpreter()
    outputs = interpreter.run(closed, jax.tree_util.tree_leaves(args))
    converted = [jnp.asarray(v, dtype=a.dtype) for v, a in zip(outputs, closed.out_avals, strict=True)]
    return converted, interpreter.flops
