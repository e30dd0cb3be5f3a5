"""Jits a lambda that calls f: the same program, in a module JAX names @jit__lambda instead of
@jit_f. The module's name is JAX's, not part of the answer."""

import jax


def build_report(f, *signature):
    lowered = jax.jit(lambda *args: f(*args)).lower(*(jax.ShapeDtypeStruct(s, d) for s, d in signature))
    flops = lowered.compile().cost_analysis().get("flops")
    return {"lowered": lowered, "stablehlo": lowered.as_text(), "flops": 0.0 if flops is None else float(flops)}
