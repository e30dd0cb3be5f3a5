"""Reference solution: jax.eval_shape traces f on the specs and computes nothing."""

import jax


def eval_output_shape(f, *specs):
    return jax.eval_shape(f, *specs)
