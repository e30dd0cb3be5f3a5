"""A frozen dataclass registered with jax.tree_util.register_dataclass; its checks moved from __init__ into make_block,
since register_dataclass rebuilds instances through __init__. blend and sgd_step are written another way too."""

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np

ACTIVATIONS = {"relu": jax.nn.relu, "tanh": jnp.tanh, "softplus": jax.nn.softplus}


@dataclasses.dataclass(frozen=True)
class Block:
    weight: jax.Array
    bias: jax.Array
    gain: jax.Array
    activation: str
    depth: int


jax.tree_util.register_dataclass(Block, data_fields=["weight", "bias", "gain"], meta_fields=["activation", "depth"])


def make_block(weight, bias, gain, activation, depth):
    if activation not in ACTIVATIONS:
        raise ValueError(f"unknown activation {activation!r}")
    if type(depth) is not int or depth < 1:
        raise ValueError(f"depth must be an int of at least 1, not {depth!r}")
    if weight.ndim != 2 or weight.shape[0] != weight.shape[1]:
        raise ValueError(f"weight must be a square matrix, not of shape {weight.shape}")
    if bias.shape != weight.shape[:1] or gain.shape != weight.shape[:1]:
        raise ValueError("bias and gain must be vectors as long as weight is wide")
    if not np.isfinite(weight).all():
        raise ValueError("weight holds NaN or infinity")
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
    return jax.tree.map(lambda u, v: u * (1 - t) + v * t, a, b)


def _step(block, x, lr):
    _, grads = jax.value_and_grad(loss)(block, x)
    return jax.tree.map(lambda p, g: p - lr * g, block, grads)


sgd_step = jax.jit(_step)
