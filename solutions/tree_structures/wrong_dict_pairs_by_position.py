"""Checks that the two dicts have the same keys, then pairs their values in the order each was written, as if
the dicts were lists: {'b': 1, 'a': 2} with {'a': 3, 'b': 4} pairs 1 with 3 instead of 1 with 4."""
# expect: wrong_answer
# pitfall: Following the dict's written order

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
    if type(first) not in (tuple, list, dict, Pair):  # a leaf takes whatever the second tree holds here
        return (first, second)
    if type(second) is not type(first) or len(second) != len(first):
        raise ValueError("another node type or another length")
    if type(first) is dict:
        if sorted(second) != sorted(first):
            raise ValueError("other keys")
        values = [paired(x, y) for x, y in zip(first.values(), second.values())]
        return dict(sorted(zip(first, values)))
    children = [paired(x, y) for x, y in zip(first, second)]
    return Pair(*children) if type(first) is Pair else type(first)(children)


def predict_tree_map(a, b):
    try:
        return repr(paired(decode(a), decode(b)))
    except ValueError:
        return "error"
