"""Reads f's code instead of its jaxpr: an argument counts as used when the body of f loads it, so z in
jnp.zeros_like(z) counts (only its shape is read, while tracing) and so does an argument read only by a
discarded intermediate."""
# expect: wrong_answer by test_identity_constants_and_closed_over_arrays
# pitfall: Reading the source instead of the jaxpr.

import dis

import jax

LOADS = ("LOAD_FAST", "LOAD_DEREF", "LOAD_CLOSURE")


def used_inputs(f, *args):
    code = f.__code__
    parameters = code.co_varnames[: code.co_argcount]
    loaded = set()
    for instruction in dis.get_instructions(code):
        if instruction.opname.startswith(LOADS):
            names = instruction.argval if isinstance(instruction.argval, tuple) else (instruction.argval,)
            loaded.update(names)
    flags = []
    for name, arg in zip(parameters, args, strict=True):
        # every leaf of an argument the body loads is read
        flags.extend([name in loaded] * len(jax.tree_util.tree_leaves(arg)))
    return flags
