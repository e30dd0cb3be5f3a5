"""Reference solution: read n from x and m from f's abstract output (jax.eval_shape computes nothing), then pick
the mode whose number of passes is the smaller: forward mode (one JVP per input) when there are at least as many
outputs as inputs, reverse mode (one VJP per output) otherwise."""

import jax


def jacobian(f, x):
    n = x.shape[0]
    m = jax.eval_shape(f, x).shape[0]
    if m >= n:
        return jax.jacfwd(f)(x)  # tall or square: n JVPs
    return jax.jacrev(f)(x)  # wide: m VJPs
