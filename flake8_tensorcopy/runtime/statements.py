"""What the statement of a call does with the call's result: the one fact the monitor reads
from the user's source. A move (``.cpu()``, ``.to()``, ``.contiguous()``) that returns its very
receiver makes an alias only where the result is kept beside the receiver: ``host = x.cpu()``,
``history.append(x.cpu())``, ``return x.cpu()``; not ``x = x.to(device)`` (the same name
rebound) nor ``x.cpu().clone()`` (consumed at once)."""

import ast
import linecache
from typing import Dict, List, Optional

KEEPING_METHODS = frozenset({"append", "insert", "extend", "add", "setdefault", "update", "__setitem__"})

_statements: Dict[str, Optional[List[ast.stmt]]] = {}


def _module_statements(path: str) -> Optional[List[ast.stmt]]:
    if path not in _statements:
        source = "".join(linecache.getlines(path))
        try:
            tree = ast.parse(source) if source else None
        except (SyntaxError, ValueError):
            tree = None
        _statements[path] = None if tree is None else [
            node for node in ast.walk(tree) if isinstance(node, ast.stmt) and not isinstance(node, _COMPOUND)
        ]
    return _statements[path]


_COMPOUND = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.If, ast.For, ast.AsyncFor, ast.While,
             ast.With, ast.AsyncWith, ast.Try)


def _statement_at(path: str, line: int) -> Optional[ast.stmt]:
    candidates = [
        node for node in _module_statements(path) or ()
        if node.lineno <= line <= (node.end_lineno or node.lineno)
    ]
    return min(candidates, key=lambda node: (node.end_lineno or node.lineno) - node.lineno, default=None)


def _parents(statement: ast.stmt) -> Dict[ast.AST, ast.AST]:
    return {child: node for node in ast.walk(statement) for child in ast.iter_child_nodes(node)}


def returns(path: str, line: int) -> bool:
    """Whether the statement on ``line`` is a ``return``: what a function returns reads as a
    value to its caller, even when it is a view of the function's argument."""
    return isinstance(_statement_at(path, line), ast.Return)


def bound_together(path: str, first_line: int, last_line: int, names) -> Optional[int]:
    """The line, between the two, of an assignment ``a = b`` binding two of ``names`` together."""
    for node in _module_statements(path) or ():
        if (first_line <= node.lineno <= last_line and isinstance(node, ast.Assign) and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name) and isinstance(node.value, ast.Name)
                and {node.targets[0].id, node.value.id} <= set(names)):
            return node.lineno
    return None


def result_kept(path: str, line: int, method: str, handed_on: bool = False) -> bool:
    """Whether the statement on ``line`` keeps the result of its ``.method(...)`` call (or its
    ``.method`` attribute, or its subscript for ``__getitem__``) beside the receiver. Where the
    source or the expression cannot be found, the result counts as kept."""
    statement = _statement_at(path, line)
    if statement is None:
        return True
    parents = _parents(statement)
    found = [(node, receiver) for node in ast.walk(statement) for receiver in [_receiver(node, method, parents)]
             if receiver is not None]
    return not found or any(_kept(node, receiver, parents, handed_on) for node, receiver in found)


def _receiver(node: ast.AST, method: str, parents) -> Optional[ast.AST]:
    """The receiver when ``node`` is the expression ``method`` names, else None."""
    if method == "__getitem__":
        return node.value if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load) else None
    if isinstance(node, ast.Attribute) and node.attr == method:
        parent = parents.get(node)
        return None if isinstance(parent, ast.Call) and parent.func is node else node.value
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == method:
        return node.func.value
    return None


def _kept(call: ast.AST, receiver_node: ast.AST, parents: Dict[ast.AST, ast.AST], handed_on: bool) -> bool:
    """``handed_on``: an argument of any call counts as kept (the callee may keep or write it)."""
    if not isinstance(receiver_node, (ast.Name, ast.Attribute, ast.Subscript)):
        return False  # a temporary: nothing else holds what the result shares
    parent = parents.get(call)
    receiver = ast.dump(receiver_node)
    if isinstance(parent, (ast.Assign, ast.AnnAssign)):
        targets = parent.targets if isinstance(parent, ast.Assign) else [parent.target]
        return any(ast.dump(target, annotate_fields=True).replace("Store()", "Load()") != receiver
                   for target in targets)
    if isinstance(parent, (ast.Return, ast.Yield, ast.ListComp, ast.DictComp, ast.GeneratorExp)):
        return True
    if isinstance(parent, (ast.List, ast.Tuple, ast.Dict, ast.Set)):
        return _kept_container(parent, parents)
    if isinstance(parent, ast.Call) and call in parent.args:
        return handed_on or isinstance(parent.func, ast.Attribute) and parent.func.attr in KEEPING_METHODS
    return False


def _kept_container(container: ast.AST, parents: Dict[ast.AST, ast.AST]) -> bool:
    parent = parents.get(container)
    return isinstance(parent, (ast.Assign, ast.AnnAssign, ast.Return)) or (
        isinstance(parent, ast.Call) and isinstance(parent.func, ast.Attribute) and parent.func.attr in KEEPING_METHODS
    )
