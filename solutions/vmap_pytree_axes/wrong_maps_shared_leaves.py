"""Maps all of params on axis 0, shared leaves included: an error when a shared leaf is 0-d or shorter than
the ensemble, and silently wrong values when its first axis happens to have the ensemble's length."""
# expect: wrong_answer by test_shared_leaves_as_long_as_the_ensemble
# pitfall: Mapping the shared leaves

import jax


def ensemble_apply(model, params, x):
    over_examples = jax.vmap(model, in_axes=(None, 1))
    return jax.vmap(over_examples, in_axes=(0, None), out_axes=1)(params, x)
