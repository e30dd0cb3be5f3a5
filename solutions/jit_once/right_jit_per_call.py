"""Vmaps f once, then calls jax.jit of that same vmapped function anew for every call: each
wrapper is a new object, but jit's caches are keyed on the function it wraps, so each signature
is still traced once. Right, if less tidy than one jitted function."""

import jax


def jit_once(f, calls):
    per_example = jax.vmap(f, in_axes=(None, 0))
    return [jax.jit(per_example)(params, xs) for params, xs in calls]
