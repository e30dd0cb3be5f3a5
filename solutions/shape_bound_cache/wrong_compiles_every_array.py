"""Compiles for every array and lets later ones overwrite earlier ones: repeated shapes compile again."""
# expect: wrong_answer
# pitfall: Compiling for every array

import jax
import jax.numpy as jnp


def shape_bound_cache(xs):
    return {tuple(x.shape): jax.jit(jnp.sum).lower(x).compile() for x in xs}
