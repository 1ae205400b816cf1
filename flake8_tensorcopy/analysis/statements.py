"""Plain helpers over LibCST statement lists and subtrees, shared by the walk, the summaries,
the rules and the engine."""

import dataclasses
from typing import Dict, Iterable, Iterator, List, Optional, Sequence, Tuple

import libcst as cst

from flake8_tensorcopy.knowledge.conventions import method_receiver


def suite_statements(suite) -> Sequence[cst.CSTNode]:
    if type(suite) is cst.SimpleStatementSuite:
        return [cst.SimpleStatementLine(body=suite.body)]
    return suite.body


def small_statements(statements: Iterable[cst.CSTNode]) -> Iterator[cst.CSTNode]:
    """Every small statement in a block, nested blocks included, nested scopes excluded."""
    for statement in statements:
        statement_type = type(statement)
        if statement_type is cst.SimpleStatementLine:
            yield from statement.body
        elif statement_type not in (cst.FunctionDef, cst.ClassDef):
            for block in nested_blocks(statement):
                yield from small_statements(block)


def nested_blocks(statement: cst.CSTNode) -> Iterator[Sequence[cst.CSTNode]]:
    """The statement lists inside a compound statement (if, for, while, try, with, match)."""
    body = getattr(statement, "body", None)
    if body is not None:
        yield suite_statements(body)
    for part in list(getattr(statement, "handlers", ())) + list(getattr(statement, "cases", ())):
        yield suite_statements(part.body)
    orelse = getattr(statement, "orelse", None)
    if orelse is not None:
        yield [orelse] if type(orelse) is cst.If else suite_statements(orelse.body)
    final = getattr(statement, "finalbody", None)
    if final is not None:
        yield suite_statements(final.body)


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


def keyword_value(call: cst.Call, name: str) -> Optional[cst.BaseExpression]:
    """What ``call`` passes as ``name=``, or None."""
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == name:
            return arg.value
    return None


def is_name(node: Optional[cst.CSTNode], name: str) -> bool:
    """Whether ``node`` is the bare name ``name`` (``True``, ``False``, ``self``)."""
    return type(node) is cst.Name and node.value == name


def decorator_names(function: cst.FunctionDef) -> Tuple[str, ...]:
    """The bare-name decorators of ``function`` (``staticmethod``, ``property``)."""
    return tuple(decorator.decorator.value for decorator in function.decorators
                 if type(decorator.decorator) is cst.Name)


def receiver_of(method: cst.FunctionDef) -> Optional[str]:
    """The name a method's object goes by (its first parameter, whatever it is called), or
    None for a static method or one without parameters."""
    parameters = method.params.posonly_params + method.params.params
    return method_receiver(tuple(parameter.name.value for parameter in parameters), decorator_names(method))
