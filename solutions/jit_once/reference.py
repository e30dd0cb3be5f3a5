"""Reference solution: jit of the vmapped f, built once before the calls and called on each (params, xs).

jax.jit keeps its cache on the function object it was given, keyed by each call's signature: the pytree
structure, shapes, dtypes and weak types of the arguments. Building jax.jit(jax.vmap(f, in_axes=(None, 0)))
once, before the loop, means every call meets the same cache, so f is traced once per distinct signature and
later calls with a known signature run the compiled program directly. Rebuilding it inside the loop, or
wrapping it in a new lambda or partial, would hand jit a new function, with an empty cache, every time.
in_axes=(None, 0) shares the weights across the batch and maps only the examples, and jit outermost compiles
the whole batched computation as one program, where vmap of a jitted f would redo the batching in Python at
every call.
"""

import jax


def jit_once(f, calls):
    batched = jax.jit(jax.vmap(f, in_axes=(None, 0)))
    return [batched(params, xs) for params, xs in calls]
