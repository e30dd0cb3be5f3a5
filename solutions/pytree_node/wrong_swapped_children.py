"""Flattens (weight, gain, bias) but unflattens (weight, bias, gain): bias and gain, both [d], swap silently."""
# expect: wrong_answer
# pitfall: Children in another order than unflatten reads them

import jax
import jax.numpy as jnp
import numpy as np

ACTIVATIONS = {"relu": jax.nn.relu, "tanh": jnp.tanh, "softplus": jax.nn.softplus}


@jax.tree_util.register_pytree_node_class
class Block:
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
        return (self.weight, self.gain, self.bias), (self.activation, self.depth)

    @classmethod
    def tree_unflatten(cls, config, leaves):
        block = object.__new__(cls)
        block.weight, block.bias, block.gain = leaves
        block.activation, block.depth = config
        return block


def make_block(weight, bias, gain, activation, depth):
    return Block(weight, bias, gain, activation, depth)


def fields(block):
    return block.weight, block.bias, block.gain, block.activation, block.depth


def forward(block, x):
    act = ACTIVATIONS[block.activation]
    for _ in range(block.depth):
        x = act(x @ block.weight + block.bias)
    return block.gain * x


def loss(block, x):
    return jnp.sum(forward(block, x) ** 2)


def blend(a, b, t):
    return jax.tree.map(lambda u, v: (1 - t) * u + t * v, a, b)


@jax.jit
def sgd_step(block, x, lr):
    grads = jax.grad(loss)(block, x)
    return jax.tree.map(lambda p, g: p - lr * g, block, grads)
