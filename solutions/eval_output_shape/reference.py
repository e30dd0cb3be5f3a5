"""Reference solution: jax.eval_shape traces f on the specs and computes nothing.

jax.eval_shape is abstract evaluation: it traces f with abstract values (shape and dtype only, no buffers)
standing for its arguments and returns the abstract value of the result as a jax.ShapeDtypeStruct. Every jnp
operation already knows the shape and dtype of its output from those of its inputs, which is how jit can trace
at all, so no array is allocated and nothing is compiled or run. That makes it exact for specs of many
gigabytes, and exact for dtypes as well: JAX's own promotion rules are applied, weak types included, where a
table of one's own or NumPy's promotion would be wrong. The specs are passed straight through, and the result
is already the type the problem asks for.
"""

import jax


def eval_output_shape(f, *specs):
    return jax.eval_shape(f, *specs)
