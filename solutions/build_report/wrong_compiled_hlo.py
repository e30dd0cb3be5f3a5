"""Reads the text of the compiled executable: XLA's optimised HLO, not the lowering's StableHLO."""
# expect: wrong_answer
# pitfall: Reading the compiled text

import jax


def build_report(f, *signature):
    lowered = jax.jit(f).lower(*(jax.ShapeDtypeStruct(shape, dtype) for shape, dtype in signature))
    compiled = lowered.compile()
    flops = float(compiled.cost_analysis().get("flops", 0.0))
    return {"lowered": lowered, "stablehlo": compiled.as_text(), "flops": flops}
