"""Hands back the Compiled executable where the Lowered stage was asked for."""
# expect: wrong_answer

import jax


def build_report(f, *signature):
    lowered = jax.jit(f).lower(*(jax.ShapeDtypeStruct(shape, dtype) for shape, dtype in signature))
    compiled = lowered.compile()
    flops = float(compiled.cost_analysis().get("flops", 0.0))
    return {"lowered": compiled, "stablehlo": lowered.as_text(), "flops": flops}
