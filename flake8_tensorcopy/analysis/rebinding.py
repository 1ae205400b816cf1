"""Names a function rebinds in a scope not its own: what they hold is the join of every value
assigned to them anywhere, which a walk in program order does not see.

``global w`` or ``nonlocal w`` with a store in a function, ``globals()["w"] = ...``,
``globals().update(w=...)``, ``setattr(sys.modules[__name__], "w", ...)``: after any call, ``w``
may hold what that function assigned (a list where the module made a tensor). Read on the
stdlib ast of the whole source, bodies the LibCST parse leaves out included.
"""

import ast
from dataclasses import dataclass
from typing import Iterator, Optional

from flake8_tensorcopy.scan import descendants

EVERY_NAME = "*"  # ``globals().update(mapping)``: any module-level name may be rebound

# Methods of ``globals()`` that only read it.
_READING = frozenset({"get", "keys", "values", "items", "copy", "__getitem__", "__contains__"})
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


@dataclass(frozen=True)
class Rebound:
    module: frozenset  # module-level names rebound from elsewhere (EVERY_NAME: all of them)
    enclosing: frozenset  # names a nested function rebinds with ``nonlocal``

    def holds(self, name: str, module_level: bool) -> bool:
        if module_level:
            return name in self.module or EVERY_NAME in self.module
        return name in self.enclosing


NOTHING_REBOUND = Rebound(frozenset(), frozenset())


def rebound_names(tree: ast.AST) -> Rebound:
    module, enclosing = set(), set()
    for node in descendants(tree):
        node_type = type(node)
        if node_type in (ast.FunctionDef, ast.AsyncFunctionDef):
            declared, stored = _declarations_and_stores(node)
            module.update(name for name, is_global in declared.items() if is_global and name in stored)
            enclosing.update(name for name, is_global in declared.items() if not is_global and name in stored)
        elif node_type is ast.Subscript and type(node.ctx) is not ast.Load and _is_globals(node.value):
            module.add(_constant_name(node.slice) or EVERY_NAME)
        elif node_type is ast.Call:
            module.update(_rebound_by_call(node))
    return Rebound(frozenset(module), frozenset(enclosing))


def _declarations_and_stores(function: ast.AST) -> tuple:
    """({name: declared global?} for the ``global``/``nonlocal`` names of ``function``'s own body,
    the names it binds), nested scopes left out."""
    declared, stored = {}, set()
    stack = list(function.body)
    while stack:
        node = stack.pop()
        node_type = type(node)
        if node_type in (ast.Global, ast.Nonlocal):
            declared.update((name, node_type is ast.Global) for name in node.names)
        elif node_type is ast.Name and type(node.ctx) is not ast.Load:
            stored.add(node.id)
        elif node_type in (ast.Import, ast.ImportFrom):
            stored.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
        elif node_type is ast.ExceptHandler and node.name:
            stored.add(node.name)
        if node_type in _SCOPES:
            if node_type is not ast.Lambda:
                stored.add(node.name)
            continue
        stack.extend(ast.iter_child_nodes(node))
    return declared, stored


def _rebound_by_call(call: ast.Call) -> Iterator[str]:
    """The names ``globals().update(...)`` (any writing method) or ``setattr(<this module>, ...)`` bind."""
    func = call.func
    if type(func) is ast.Attribute and func.attr not in _READING and _is_globals(func.value):
        names = [keyword.arg for keyword in call.keywords if keyword.arg is not None]
        if len(names) < len(call.keywords):
            names.append(EVERY_NAME)  # ``**mapping``
        for argument in call.args[:1]:
            if type(argument) is ast.Dict:
                names.extend(_constant_name(key) or EVERY_NAME for key in argument.keys)
            else:
                names.append(_constant_name(argument) or EVERY_NAME)
        yield from names
    elif type(func) is ast.Name and func.id == "setattr" and len(call.args) >= 2 and _is_this_module(call.args[0]):
        yield _constant_name(call.args[1]) or EVERY_NAME


def _is_globals(node: ast.AST) -> bool:
    return type(node) is ast.Call and type(node.func) is ast.Name and node.func.id == "globals" and not node.args


def _is_this_module(node: ast.AST) -> bool:
    """``sys.modules[__name__]``."""
    return (type(node) is ast.Subscript and type(node.slice) is ast.Name and node.slice.id == "__name__"
            and type(node.value) is ast.Attribute and node.value.attr == "modules")


def _constant_name(node: Optional[ast.AST]) -> Optional[str]:
    return node.value if type(node) is ast.Constant and type(node.value) is str else None
