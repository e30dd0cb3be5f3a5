"""Defaults to the int 0 when XLA leaves "flops" out: a Python int, not the float 0.0 asked for."""
# expect: wrong_answer

import jax


def build_report(f, *signature):
    lowered = jax.jit(f).lower(*(jax.ShapeDtypeStruct(shape, dtype) for shape, dtype in signature))
    costs = lowered.compile().cost_analysis()
    return {"lowered": lowered, "stablehlo": lowered.as_text(), "flops": costs.get("flops", 0)}
