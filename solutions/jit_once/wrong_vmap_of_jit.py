"""Jits f and vmaps the jitted function: vmap then runs in Python on every call and traces the
jit under its own trace, so no program of the whole batch is ever jitted."""
# expect: wrong_answer
# pitfall: Not jitting, or jitting the inside.

import jax


def jit_once(f, calls):
    per_example = jax.vmap(jax.jit(f), in_axes=(None, 0))
    return [per_example(params, xs) for params, xs in calls]
