"""Reference solution: lower jit(f) for abstract arguments; StableHLO from the lowering, flops once compiled.

Lowering only needs each argument's shape and dtype, so jax.ShapeDtypeStruct stands in for arrays that would
take terabytes and nothing is ever allocated. Each of the three answers comes from the stage that holds it.
The Lowered stage holds the program as JAX emitted it, and its as_text() in the default dialect is the
StableHLO module, before XLA has rewritten anything. The flop count must describe what XLA actually built, so
it is read from cost_analysis() of the compiled executable, not from the Lowered stage's estimate, and a
missing "flops" key means the program does no arithmetic at all, which is 0.0.
"""

import jax


def build_report(f, *signature):
    abstract = [jax.ShapeDtypeStruct(tuple(shape), dtype) for shape, dtype in signature]
    lowered = jax.jit(f).lower(*abstract)
    costs = lowered.compile().cost_analysis()
    return {"lowered": lowered, "stablehlo": lowered.as_text(), "flops": float(costs.get("flops", 0.0))}
