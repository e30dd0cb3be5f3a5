"""Runs f on arrays of zeros built from the specs: right for small specs, but a spec of many GB cannot be allocated.

It runs out of memory; on a busy machine, reclaiming memory near the limit can outlast the time limit first."""
# expect: memory_limit_exceeded or time_limit_exceeded
# pitfall: Building inputs to run `f` on.

import jax
import jax.numpy as jnp


def eval_output_shape(f, *specs):
    out = f(*(jnp.zeros(spec.shape, spec.dtype) for spec in specs))
    return jax.ShapeDtypeStruct(out.shape, out.dtype)
