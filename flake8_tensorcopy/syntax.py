"""LibCST trees walked cheaply: a node's children, a subtree, the names under it, a dotted name.

The model runs on the stdlib ast; these serve what LibCST is still parsed for: locating the node a
finding reports, writing its fix and its message.
"""

import dataclasses
from typing import Dict, Iterable, Iterator, List, Optional, Tuple

import libcst as cst


class _FieldOrder(cst.CSTVisitor):
    """Records the fields of ``root`` in the order LibCST visits them (lexical order)."""

    def __init__(self, root: cst.CSTNode):
        self.root = root
        self.fields: List[str] = []

    def on_visit_attribute(self, node: cst.CSTNode, attribute: str) -> None:
        if node is self.root and attribute not in self.fields:
            self.fields.append(attribute)

    def on_visit(self, node: cst.CSTNode) -> bool:
        return False


# per node type: its fields in the order LibCST visits them, and the fields it skipped
# because they were unset (``FormattedStringExpression.format_spec`` is visited only when set)
_CHILD_FIELDS: Dict[type, Tuple[Tuple[str, ...], Tuple[str, ...]]] = {}


def children_of(node: cst.CSTNode) -> List[cst.CSTNode]:
    """``node.children`` without its cost: LibCST computes that property by rebuilding (and
    validating) the node; this reads the node's fields, in the order LibCST visits them
    (learnt once per node type), so the result is the same list."""
    node_type = type(node)
    learnt = _CHILD_FIELDS.get(node_type)
    if learnt is None:
        recorder = _FieldOrder(node)
        node._visit_and_replace_children(recorder)
        unset = tuple(field.name for field in dataclasses.fields(node)
                      if field.name not in recorder.fields and _unset(getattr(node, field.name)))
        learnt = _CHILD_FIELDS[node_type] = (tuple(recorder.fields), unset)
    fields, unset = learnt
    if unset and not all(_unset(getattr(node, field)) for field in unset):
        return list(node.children)  # set here where the node LibCST learnt from had it unset
    children = []
    for field in fields:
        value = getattr(node, field)
        if isinstance(value, cst.CSTNode):
            children.append(value)
        elif type(value) in (tuple, list):
            children.extend(item for item in value if isinstance(item, cst.CSTNode))
    return children


def _unset(value) -> bool:
    return value is None or (type(value) in (tuple, list) and not value)


def subtree(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """``node`` and every node below it, depth first (no recursion: deep code stays safe)."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(children_of(current))


def names_under(nodes: Iterable[cst.CSTNode]) -> set:
    """The names read or written anywhere in ``nodes`` (``{"loss", "w"}`` for ``loss * w.t()``)."""
    return {node.value for root in nodes for node in subtree(root) if type(node) is cst.Name}


def dotted_name(node: cst.BaseExpression) -> Optional[str]:
    """``a.b.c`` for a Name/Attribute chain, else None."""
    parts = []
    while type(node) is cst.Attribute:
        parts.append(node.attr.value)
        node = node.value
    if type(node) is not cst.Name:
        return None
    parts.append(node.value)
    return ".".join(reversed(parts))
