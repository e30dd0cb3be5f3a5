"""Reference solution: the primitive name of every top-level equation, in order.

jax.make_jaxpr traces f with abstract values standing for the arguments and records every primitive operation
it applies, in order, as the equations of a jaxpr; nothing is computed. Each equation knows its primitive, and
the primitive's name is the string the problem asks for. f itself is traced, not jax.jit(f), because tracing a
jitted function gives a single jit equation that hides the operations inside it. The arguments are passed as
they are, since a cast or a Python scalar promoted differently would add or remove convert_element_type
equations, and a repeated operation appears once per use because each use is its own equation.
"""

import jax


def jaxpr_primitives(f, *args):
    closed = jax.make_jaxpr(f)(*args)
    return [equation.primitive.name for equation in closed.jaxpr.eqns]
