"""Reference solution: Block as a pytree node class, its arrays the children and its settings a tuple of aux data.

JAX sees inside a registered class only through its flatten and unflatten functions: the children are the
leaves that jit traces, grad differentiates and tree.map visits, while the auxiliary data is kept in the
tree's structure and compared with == as part of jit's cache key. So the three arrays go into the
children, and the activation name and the depth go into the aux data as a tuple of a string and an int,
which compares equal for equal configurations: a block with new values reuses the trace, a new
configuration gets a trace of its own, and Python control flow on the configuration sees real Python
values. tree_unflatten reads the children back in the order tree_flatten wrote them and rebuilds the block
with object.__new__, skipping __init__, because JAX rebuilds blocks from tracers (under jit and grad) and
from whatever a tree.map returned, on which __init__'s checks would fail. blend and sgd_step then need
nothing but jax.tree.map, which pairs the fields of two blocks and raises ValueError when their
configurations, part of the structure, differ; sgd_step is jitted once, so only a new configuration or new
shapes trace it again.
"""

import jax
import jax.numpy as jnp
import numpy as np

ACTIVATIONS = {"relu": jax.nn.relu, "tanh": jnp.tanh, "softplus": jax.nn.softplus}


@jax.tree_util.register_pytree_node_class
class Block:
    """weight [d, d], bias [d] and gain [d] (arrays), activation (a name) and depth (an int)."""

    def __init__(self, weight, bias, gain, activation, depth):
        if activation not in ACTIVATIONS:
            raise ValueError(f"unknown activation {activation!r}, expected one of {sorted(ACTIVATIONS)}")
        if type(depth) is not int or depth < 1:
            raise ValueError(f"depth must be an int of at least 1, not {depth!r}")
        if weight.ndim != 2 or weight.shape[0] != weight.shape[1]:
            raise ValueError(f"weight must be a square matrix, not of shape {weight.shape}")
        if bias.shape != weight.shape[:1] or gain.shape != weight.shape[:1]:
            raise ValueError("bias and gain must be vectors as long as weight is wide")
        if not np.isfinite(weight).all():
            raise ValueError("weight holds NaN or infinity")
        self.weight, self.bias, self.gain = weight, bias, gain
        self.activation, self.depth = activation, depth

    def tree_flatten(self):
        return (self.weight, self.bias, self.gain), (self.activation, self.depth)

    @classmethod
    def tree_unflatten(cls, config, leaves):
        rebuilt = object.__new__(cls)  # no __init__: the leaves may be tracers or any values
        rebuilt.weight, rebuilt.bias, rebuilt.gain = leaves
        rebuilt.activation, rebuilt.depth = config
        return rebuilt


def make_block(weight, bias, gain, activation, depth):
    # Given: keep it. The grader builds every block through it.
    return Block(weight, bias, gain, activation, depth)


def fields(block):
    # Given: keep it. The grader reads a block's fields through it.
    return block.weight, block.bias, block.gain, block.activation, block.depth


def forward(block, x):
    # Given: keep it. Python control flow on the configuration: a dict lookup and a loop.
    act = ACTIVATIONS[block.activation]
    for _ in range(block.depth):
        x = act(x @ block.weight + block.bias)
    return block.gain * x


def loss(block, x):
    # Given: keep it.
    return jnp.sum(forward(block, x) ** 2)


def blend(a, b, t):
    return jax.tree.map(lambda u, v: (1 - t) * u + t * v, a, b)


@jax.jit
def sgd_step(block, x, lr):
    grads = jax.grad(loss)(block, x)
    return jax.tree.map(lambda p, g: p - lr * g, block, grads)
