"""Reference solution: vmap the model over the examples on axis 1, then over the members with a dict of axes
and out_axes=1.

The inner jax.vmap takes one example at a time from axis 1 of x and passes params through whole (None), so it
is the model applied to a whole batch for one member's parameters. The outer jax.vmap maps the parameters with
the pytree {"member": 0, "shared": None}, a prefix of their structure: every leaf under "member" loses its
leading ensemble axis while every leaf under "shared" is passed as it is, and x (None) is not split again, so
each member meets every example. Its out_axes=1 inserts the members' axis after the examples' axis of the
inner result, which gives out[j, i] without a transpose written by hand. Both maps are batching rules applied
to one trace of the model, so the program has the same equations for any number of members or examples, and
the shared leaves are never copied per member.
"""

import jax


def ensemble_apply(model, params, x):
    over_examples = jax.vmap(model, in_axes=(None, 1))
    axes = {"member": 0, "shared": None}
    return jax.vmap(over_examples, in_axes=(axes, None), out_axes=1)(params, x)
