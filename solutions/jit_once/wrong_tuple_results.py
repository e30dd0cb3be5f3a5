"""Returns the results as a tuple instead of a list: the right arrays, traced once per signature."""
# expect: wrong_answer

import jax


def jit_once(f, calls):
    batched = jax.jit(jax.vmap(f, in_axes=(None, 0)))
    return tuple(batched(params, xs) for params, xs in calls)
