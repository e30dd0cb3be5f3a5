"""Indexes "flops" directly: a KeyError for programs with no arithmetic, where XLA leaves the key out."""
# expect: runtime_error
# pitfall: Indexing `["flops"]` blindly

import jax


def build_report(f, *signature):
    lowered = jax.jit(f).lower(*(jax.ShapeDtypeStruct(shape, dtype) for shape, dtype in signature))
    flops = float(lowered.compile().cost_analysis()["flops"])
    return {"lowered": lowered, "stablehlo": lowered.as_text(), "flops": flops}
