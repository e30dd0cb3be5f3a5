"""Gives in_axes one entry per part of the problem, (0, None, 1), for a function of two arguments: vmap
needs a tuple with one entry per positional argument and refuses this one."""
# expect: runtime_error
# pitfall: A flat tuple of axes

import jax


def ensemble_apply(model, params, x):
    over_examples = jax.vmap(model, in_axes=(None, 1))
    return jax.vmap(over_examples, in_axes=(0, None, 1), out_axes=1)(params, x)
