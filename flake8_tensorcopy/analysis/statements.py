"""Plain helpers over LibCST statement lists and subtrees, shared by the walk, the summaries,
the rules and the engine."""

from typing import Iterable, Iterator, Optional, Sequence

import libcst as cst


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


def subtree(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """``node`` and every node below it, depth first (no recursion: deep code stays safe)."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(current.children)


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
