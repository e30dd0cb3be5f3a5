"""Requires the second tree to have exactly the first one's structure, so a subtree or None opposite a leaf of
the first tree raises: 1 with (2, 3) answers error, while JAX calls f(1, (2, 3))."""
# expect: wrong_answer by test_first_tree_is_the_prefix
# pitfall: Requiring identical structures

import ast
import collections

Pair = collections.namedtuple("Pair", "first second")


def decode(text):
    """The tree a string describes: ints, None, tuples, lists, dicts and Pair(first=..., second=...)."""
    return _build(ast.parse(text, mode="eval").body)


def _build(node):
    if isinstance(node, ast.Call):  # Pair(first=..., second=...), the only call the strings hold
        return Pair(**{keyword.arg: _build(keyword.value) for keyword in node.keywords})
    if isinstance(node, ast.Tuple):
        return tuple(_build(item) for item in node.elts)
    if isinstance(node, ast.List):
        return [_build(item) for item in node.elts]
    if isinstance(node, ast.Dict):
        return {_build(key): _build(value) for key, value in zip(node.keys, node.values)}
    return ast.literal_eval(node)  # an int, a dict key or None


def paired(first, second):
    # jax.tree.map(lambda x, y: (x, y), first, second), raising ValueError where JAX does.
    if first is None:  # an empty node, not a leaf: the second tree must hold None here too
        if second is not None:
            raise ValueError("None in the first tree, something else in the second")
        return None
    if type(first) not in (tuple, list, dict, Pair):
        if second is None or type(second) in (tuple, list, dict, Pair):
            raise ValueError("a leaf in the first tree, a subtree in the second")
        return (first, second)
    if type(second) is not type(first) or len(second) != len(first):
        raise ValueError("another node type or another length")
    if type(first) is dict:
        if sorted(second) != sorted(first):
            raise ValueError("other keys")
        return {key: paired(first[key], second[key]) for key in sorted(first)}
    children = [paired(x, y) for x, y in zip(first, second)]
    return Pair(*children) if type(first) is Pair else type(first)(children)


def predict_tree_map(a, b):
    try:
        return repr(paired(decode(a), decode(b)))
    except ValueError:
        return "error"
