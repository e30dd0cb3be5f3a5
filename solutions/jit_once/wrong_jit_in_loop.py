"""Makes a new jax.jit(lambda ...) for every x: each new function has an empty cache and traces again."""
# expect: wrong_answer

import jax


def jit_once(f, xs):
    return [jax.jit(lambda v: f(v))(x) for x in xs]
