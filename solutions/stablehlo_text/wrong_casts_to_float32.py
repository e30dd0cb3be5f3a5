"""Casts every argument to float32 before lowering: the module is then for another signature."""
# expect: wrong_answer

import jax
import jax.numpy as jnp


def stablehlo_text(f, *args):
    return jax.jit(f).lower(*[jnp.asarray(a, dtype=jnp.float32) for a in args]).as_text()
