"""Asks the lowering for the HLO dialect: unoptimised HLO, but not StableHLO."""
# expect: wrong_answer

import jax


def build_report(f, *signature):
    lowered = jax.jit(f).lower(*(jax.ShapeDtypeStruct(shape, dtype) for shape, dtype in signature))
    costs = lowered.compile().cost_analysis()
    return {"lowered": lowered, "stablehlo": lowered.as_text(dialect="hlo"), "flops": float(costs.get("flops", 0.0))}
