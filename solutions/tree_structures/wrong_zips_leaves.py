"""Flattens both trees in JAX's order, zips their leaves when the counts agree and rebuilds the first tree's
shape with the pairs: node types, keys and positions are never compared, so (1, 2) with [3, 4] passes."""
# expect: wrong_answer by test_lists_tuples_and_namedtuples
# pitfall: Matching leaves by count

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


def leaves(tree):
    if tree is None:
        return []
    if type(tree) is dict:
        return [leaf for key in sorted(tree) for leaf in leaves(tree[key])]
    if type(tree) in (tuple, list, Pair):
        return [leaf for child in tree for leaf in leaves(child)]
    return [tree]


def rebuild(tree, pairs):
    if tree is None:
        return None
    if type(tree) is dict:
        return {key: rebuild(tree[key], pairs) for key in sorted(tree)}
    if type(tree) in (tuple, list, Pair):
        children = [rebuild(child, pairs) for child in tree]
        return Pair(*children) if type(tree) is Pair else type(tree)(children)
    return next(pairs)


def predict_tree_map(a, b):
    first, second = decode(a), decode(b)
    if len(leaves(first)) != len(leaves(second)):
        return "error"
    return repr(rebuild(first, iter(zip(leaves(first), leaves(second)))))
