"""Counts with the Lowered stage's cost analysis: XLA's estimate before it optimised the program."""
# expect: wrong_answer
# pitfall: Counting on the `Lowered` stage

import jax


def build_report(f, *signature):
    lowered = jax.jit(f).lower(*(jax.ShapeDtypeStruct(shape, dtype) for shape, dtype in signature))
    lowered.compile()
    flops = float(lowered.cost_analysis().get("flops", 0.0))
    return {"lowered": lowered, "stablehlo": lowered.as_text(), "flops": flops}
