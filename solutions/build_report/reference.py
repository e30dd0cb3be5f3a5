"""Reference solution: lower jax.jit(f) once for abstract arguments (ShapeDtypeStructs), take the
StableHLO text of that lowering, and the "flops" of the same lowering compiled."""

import jax


def build_report(f, *signature):
    abstract = [jax.ShapeDtypeStruct(tuple(shape), dtype) for shape, dtype in signature]
    lowered = jax.jit(f).lower(*abstract)
    costs = lowered.compile().cost_analysis()
    return {"lowered": lowered, "stablehlo": lowered.as_text(), "flops": float(costs.get("flops", 0.0))}
