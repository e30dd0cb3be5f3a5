"""Takes a list and a tuple of the same length for the same node, since they hold the same leaves: (1, 2) with
[3, 4] gives ((1, 3), (2, 4)), but JAX raises on the different node types."""
# expect: wrong_answer by test_lists_tuples_and_namedtuples
# pitfall: Taking a list for a tuple

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


def kind(tree):
    return tuple if type(tree) is list else type(tree)  # a list is taken for a tuple


def paired(first, second):
    # jax.tree.map(lambda x, y: (x, y), first, second), raising ValueError where JAX does.
    if first is None:  # an empty node, not a leaf: the second tree must hold None here too
        if second is not None:
            raise ValueError("None in the first tree, something else in the second")
        return None
    if type(first) not in (tuple, list, dict, Pair):  # a leaf takes whatever the second tree holds here
        return (first, second)
    if kind(second) is not kind(first) or len(second) != len(first):
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
