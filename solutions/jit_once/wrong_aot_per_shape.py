"""Compiles ahead of time per shape only.

An array of a seen shape but another dtype meets an executable that refuses it.
"""
# expect: runtime_error

import jax


def jit_once(f, xs):
    compiled = {}
    results = []
    for x in xs:
        if x.shape not in compiled:
            compiled[x.shape] = jax.jit(f).lower(x).compile()
        results.append(compiled[x.shape](x))
    return results
