"""Calls jax.jit(f) anew for every x: each wrapper is a new object, but jit's caches are keyed on f
itself, so each signature is still traced once. Right, if less tidy than one jitted function."""

import jax


def jit_once(f, xs):
    return [jax.jit(f)(x) for x in xs]
