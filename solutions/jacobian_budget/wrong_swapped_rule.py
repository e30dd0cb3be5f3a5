"""Chooses by the sizes, but the wrong way round: reverse mode for tall Jacobians and forward mode for wide ones,
the costlier mode on both sides of the budget."""
# expect: wrong_answer

import jax


def jacobian(f, x):
    m = jax.eval_shape(f, x).shape[0]
    if m >= x.shape[0]:
        return jax.jacrev(f)(x)
    return jax.jacfwd(f)(x)
