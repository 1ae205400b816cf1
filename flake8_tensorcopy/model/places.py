"""Places: where a value lives, as a string key (mypy's literal hash).

``x``; an attribute path ``self.w`` or ``model.fc.weight``; a container item with a constant key
``d['a']``, ``outs[0]``, or ``backup[*]`` for any other key. A state stores names and attribute
paths; container items live inside their container's value (``Value.items``) so that a
container keeps its items wherever it travels (returned, passed, stored on ``self``).
"""

import ast
from typing import Optional, Tuple


def key_of(index: ast.AST) -> str:
    """The item key of a subscript index: the constant's repr, else ``*``."""
    if type(index) is ast.Constant and type(index.value) in (str, int, bool):
        return repr(index.value)
    if type(index) is ast.UnaryOp and type(index.op) is ast.USub and type(index.operand) is ast.Constant:
        return repr(-index.operand.value) if type(index.operand.value) is int else "*"
    return "*"


def place_of(node: ast.AST) -> Optional[str]:
    """The place an expression names, or None for anything computed (a call, an operation)."""
    kind = type(node)
    if kind is ast.Name:
        return node.id
    if kind is ast.Attribute:
        base = place_of(node.value)
        return None if base is None else f"{base}.{node.attr}"
    if kind is ast.Subscript:
        base = place_of(node.value)
        return None if base is None else f"{base}[{key_of(node.slice)}]"
    return None


def split_items(place: str) -> Tuple[str, Tuple[str, ...]]:
    """``d['a'][0]`` -> (``d``, (``'a'``, ``0``)): the stored place and the item keys below it."""
    cut = place.find("[")
    if cut < 0:
        return place, ()
    keys, depth, start = [], 0, cut
    for position in range(cut, len(place)):
        char = place[position]
        if char == "[":
            if depth == 0:
                start = position + 1
            depth += 1
        elif char == "]":
            depth -= 1
            if depth == 0:
                keys.append(place[start:position])
    return place[:cut], tuple(keys)


def inside(inner: ast.AST, outer: ast.AST) -> bool:
    """Whether ``inner`` lies within ``outer``'s source span (both ast nodes with positions)."""
    return (outer.lineno, outer.col_offset) <= (inner.lineno, inner.col_offset) and (
        inner.end_lineno, inner.end_col_offset) <= (outer.end_lineno, outer.end_col_offset)
