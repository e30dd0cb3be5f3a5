"""Vmaps f without jax.jit: the right values, run operation by operation, never traced and
compiled as one program."""
# expect: wrong_answer

import jax


def jit_once(f, calls):
    per_example = jax.vmap(f, in_axes=(None, 0))
    return [per_example(params, xs) for params, xs in calls]
