"""What the file's own callers pass: evidence against a parameter's tensor annotation.

RULES.md ("Knowing what is a tensor"): a parameter annotated ``torch.Tensor`` is a tensor. But
annotations lie (a library annotates ``latents_mean: torch.Tensor`` and passes the list in its
config), and the file often says so itself: a call site of the same file that passes a list,
tuple, number or string literal, a config value (``self.config.latents_mean``), or a name of
the caller annotated or assigned as one of those. Such a parameter is *disputed*: its
annotation alone no longer makes it a tensor. A use only a tensor survives in the callee
(``x.detach()``, ``x.backward()``, on the parameter as given) settles the dispute for the
annotation; callers passing tensors or values nothing is known about dispute nothing.

Call sites are matched by name in the stdlib ast of the whole file (the one flake8 built; bodies
the LibCST parse leaves out still count): ``f(...)`` for a top-level function, ``self.m(...)``
inside the class's methods, ``C.m(...)`` and ``C(...)`` (its ``__init__``) anywhere. A call with
``*args`` or ``**kwargs`` is not read; functions of other modules are out of reach.
"""

import ast
from typing import Dict, FrozenSet, Iterator, List, Optional, Tuple

from flake8_tensorcopy.knowledge.conventions import config_named
from flake8_tensorcopy.model.disputes import not_tensor_annotation as _not_tensor_annotation
from flake8_tensorcopy.scan import TENSOR_ONLY_METHODS

# (class name or None, function name) -> the parameters a caller of the file disputes.
Disputed = Dict[Tuple[Optional[str], str], FrozenSet[str]]

_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
# Names in an annotation that say "a tensor" (``torch.Tensor``, ``nn.Parameter``, ``Tensor``).
_TENSOR_ANNOTATION_NAMES = frozenset({"Tensor", "Parameter", "Buffer"})
# Builtins whose result is never a tensor; methods that turn a tensor into Python or numpy values.
_NOT_TENSOR_BUILTINS = frozenset({"int", "float", "bool", "str", "complex", "len", "list", "tuple", "dict",
                                  "set", "sorted", "range", "round", "enumerate", "zip"})
_NOT_TENSOR_METHODS = frozenset({"tolist", "item", "numpy"})
# Uses only a tensor survives (on the parameter itself): the annotation is right after all.
_TENSOR_USES = TENSOR_ONLY_METHODS | {"backward", "retain_grad"}
_DEPTH = 3  # how many assignments ``a = b`` are followed back to a value


def disputed_parameters(tree: ast.Module, scanned=None) -> Disputed:
    """The parameters of the file's functions and methods that one of its call sites passes a
    value that is not a tensor, unless the function uses them as only a tensor can be.

    ``scanned`` (``scan.scan_statements(tree)``, when the caller has it) says which top-level
    statements and methods call what: only those calling a callee by name are walked."""
    callees = _Callees(tree)
    if not callees.by_key:
        return {}
    module_values = _assigned_values(tree.body, nested=False)
    disputed: Dict[Tuple[Optional[str], str], set] = {}
    for caller, class_name, receiver, node, called in _call_contexts(tree, scanned):
        if called is not None and called.isdisjoint(callees.names):
            continue
        values: Optional[dict] = None
        for call in _calls(node):
            match = callees.match(call, class_name, receiver)
            if match is None:
                continue
            key, function, shift = match
            if values is None:
                values = _Values(caller, module_values)
            for name, argument in _arguments(call, function, shift):
                if name in callees.by_key[key] and values.not_tensor(argument, _DEPTH):
                    disputed.setdefault(key, set()).add(name)
    result = {}
    for key, names in disputed.items():
        function = callees.functions[key]
        names = {name for name in names if not _used_as_tensor(function, name)}
        if names:
            result[key] = frozenset(names)
    return result


class _Callees:
    """The file's top-level functions and methods of top-level classes with a parameter
    annotated as a tensor: ``by_key`` gives those parameters' names."""

    def __init__(self, tree: ast.Module):
        self.functions: Dict[Tuple[Optional[str], str], ast.AST] = {}
        self.by_key: Dict[Tuple[Optional[str], str], FrozenSet[str]] = {}
        self.classes = set()
        self.names = set()  # what a call of one of them ends with: ``f``, ``self.m``, ``C`` (its __init__)
        for statement in tree.body:
            if type(statement) in _FUNCTIONS:
                self._add((None, statement.name), statement)
            elif type(statement) is ast.ClassDef:
                self.classes.add(statement.name)
                for child in statement.body:
                    if type(child) in _FUNCTIONS:
                        self._add((statement.name, child.name), child)

    def _add(self, key, function) -> None:
        arguments = function.args
        names = frozenset(
            arg.arg for arg in arguments.posonlyargs + arguments.args + arguments.kwonlyargs
            if arg.annotation is not None and _mentions_tensor(arg.annotation)
        )
        if names:
            self.functions[key] = function
            self.by_key[key] = names
            self.names.add(key[0] if function.name == "__init__" else function.name)

    def match(self, call: ast.Call, class_name: Optional[str], receiver: Optional[str]):
        """(key, function, how many leading parameters the call binds itself) for a call of
        one of the callees, else None."""
        func = call.func
        if type(func) is ast.Name:
            name = func.id
            if (None, name) in self.by_key:
                return (None, name), self.functions[(None, name)], 0
            if (name, "__init__") in self.by_key:
                return (name, "__init__"), self.functions[(name, "__init__")], 1
            return None
        if type(func) is not ast.Attribute or type(func.value) is not ast.Name:
            return None
        owner = func.value.id
        if owner == receiver and class_name is not None:
            key = (class_name, func.attr)
            bound = 0 if "staticmethod" in _decorators(self.functions.get(key)) else 1
        elif owner in self.classes:
            key = (owner, func.attr)
            bound = 1 if "classmethod" in _decorators(self.functions.get(key)) else 0
        else:
            return None
        return (key, self.functions[key], bound) if key in self.by_key else None


def _mentions_tensor(annotation: ast.AST) -> bool:
    """Whether an annotation names ``Tensor``/``Parameter``/``Buffer`` anywhere (cheap: the
    walk decides what it means)."""
    if type(annotation) is ast.Constant and isinstance(annotation.value, str):
        return any(word in annotation.value for word in _TENSOR_ANNOTATION_NAMES)
    for node in ast.walk(annotation):
        if (type(node) is ast.Name and node.id in _TENSOR_ANNOTATION_NAMES) or (
                type(node) is ast.Attribute and node.attr in _TENSOR_ANNOTATION_NAMES):
            return True
    return False


def _decorators(function: Optional[ast.AST]) -> FrozenSet[str]:
    if function is None:
        return frozenset()
    return frozenset(
        decorator.id if type(decorator) is ast.Name else getattr(decorator, "attr", "")
        for decorator in function.decorator_list
    )


def _call_contexts(tree: ast.Module, scanned):
    """(calling function, its class, its receiver's name, node to search, the names it calls
    or None when unknown) for every part of the file."""
    statement_features = scanned.statements if scanned is not None else [None] * len(tree.body)
    method_features = scanned.methods if scanned is not None else [()] * len(tree.body)
    for statement, features, methods in zip(tree.body, statement_features, method_features):
        called = features.called if features is not None else None
        if type(statement) in _FUNCTIONS:
            yield statement, None, None, statement, called
        elif type(statement) is ast.ClassDef:
            called_by = {id(method): method_features.called for method, method_features, _stores_on_self in methods}
            for child in statement.body:
                if type(child) in _FUNCTIONS:
                    yield child, statement.name, _receiver(child), child, called_by.get(id(child), called)
                else:
                    yield None, statement.name, None, child, called
        else:
            yield None, None, None, statement, called


def _receiver(method: ast.AST) -> Optional[str]:
    """The name of a method's own object or class (its first parameter); None when static."""
    positional = method.args.posonlyargs + method.args.args
    if not positional or "staticmethod" in _decorators(method):
        return None
    return positional[0].arg


def _calls(node: ast.AST) -> Iterator[ast.Call]:
    for child in ast.walk(node):
        if type(child) is ast.Call:
            yield child


def _arguments(call: ast.Call, function: ast.AST, bound: int) -> Iterator[Tuple[str, ast.AST]]:
    """(parameter name, argument) for each argument of ``call``; nothing when it unpacks."""
    if any(type(arg) is ast.Starred for arg in call.args) or any(keyword.arg is None for keyword in call.keywords):
        return
    positional = [arg.arg for arg in function.args.posonlyargs + function.args.args][bound:]
    for name, value in zip(positional, call.args):
        yield name, value
    for keyword in call.keywords:
        yield keyword.arg, keyword.value


def _assigned_values(statements: List[ast.stmt], nested: bool) -> Dict[str, Optional[list]]:
    """Name -> the values plainly assigned to it in ``statements`` (None when it is bound some
    other way too: a loop, ``with``, unpacking, an import, a def); ``nested``: look inside
    compound statements as well (a function body), not only at the top level (a module)."""
    found: Dict[str, Optional[list]] = {}
    nodes = (node for statement in statements for node in ast.walk(statement)) if nested else statements
    for node in nodes:
        node_type = type(node)
        if node_type is ast.Assign and all(type(target) is ast.Name for target in node.targets):
            for target in node.targets:
                values = found.setdefault(target.id, [])
                if values is not None:
                    values.append(node.value)
        elif node_type is ast.AnnAssign and type(node.target) is ast.Name and node.value is not None:
            values = found.setdefault(node.target.id, [])
            if values is not None:
                values.append(node.value)
        elif node_type in (ast.Assign, ast.For, ast.AsyncFor, ast.With, ast.AsyncWith, ast.NamedExpr,
                           ast.Import, ast.ImportFrom) or node_type in _FUNCTIONS or node_type is ast.ClassDef:
            for name in _bound_names(node):
                found[name] = None
    return found


def _bound_names(node: ast.AST) -> Iterator[str]:
    """The names a statement (or walrus) binds other than by a plain ``name = value``."""
    node_type = type(node)
    if node_type in _FUNCTIONS or node_type is ast.ClassDef:
        yield node.name
        return
    if node_type in (ast.Import, ast.ImportFrom):
        for alias in node.names:
            yield (alias.asname or alias.name).split(".")[0]
        return
    if node_type is ast.Assign:
        targets = node.targets
    elif node_type in (ast.With, ast.AsyncWith):
        targets = [item.optional_vars for item in node.items if item.optional_vars is not None]
    else:  # for, async for, walrus
        targets = [node.target]
    for target in targets:
        for part in ast.walk(target):
            if type(part) is ast.Name:
                yield part.id


class _Values:
    """Answers "is this argument surely not a tensor?" in one caller (None: module level)."""

    def __init__(self, caller: Optional[ast.AST], module_values: Dict[str, Optional[list]]):
        self.module_values = module_values
        self.parameters: Dict[str, Optional[ast.AST]] = {}
        self.local_values: Dict[str, Optional[list]] = {}
        if caller is not None:
            arguments = caller.args
            for arg in arguments.posonlyargs + arguments.args + arguments.kwonlyargs:
                self.parameters[arg.arg] = arg.annotation
            for star in (arguments.vararg, arguments.kwarg):
                if star is not None:
                    self.parameters[star.arg] = None
            self.local_values = _assigned_values(caller.body, nested=True)

    def not_tensor(self, node: ast.AST, depth: int) -> bool:
        node_type = type(node)
        if node_type is ast.Constant:
            return node.value is not None and node.value is not Ellipsis
        if node_type in (ast.List, ast.Tuple, ast.Set, ast.Dict, ast.ListComp, ast.SetComp, ast.DictComp,
                         ast.GeneratorExp, ast.JoinedStr):
            return True
        if node_type is ast.UnaryOp:
            return self.not_tensor(node.operand, depth)
        if node_type is ast.BinOp:
            return self.not_tensor(node.left, depth) and self.not_tensor(node.right, depth)
        if node_type is ast.IfExp:
            return self.not_tensor(node.body, depth) and self.not_tensor(node.orelse, depth)
        if node_type is ast.Call:
            return self._not_tensor_call(node)
        if node_type in (ast.Attribute, ast.Subscript):
            return _read_from_config(node)
        if node_type is ast.Name:
            return self._not_tensor_name(node.id, depth)
        return False

    def _not_tensor_call(self, call: ast.Call) -> bool:
        func = call.func
        if type(func) is ast.Name:
            return func.id in _NOT_TENSOR_BUILTINS and not self._bound(func.id)
        return type(func) is ast.Attribute and func.attr in _NOT_TENSOR_METHODS and not call.args

    def _bound(self, name: str) -> bool:
        return name in self.parameters or name in self.local_values or name in self.module_values

    def _not_tensor_name(self, name: str, depth: int) -> bool:
        if name in self.parameters:
            annotation = self.parameters[name]
            return annotation is not None and _not_tensor_annotation(annotation)
        values = self.local_values.get(name) if name in self.local_values else self.module_values.get(name)
        return bool(values) and depth > 0 and all(self.not_tensor(value, depth - 1) for value in values)


def _read_from_config(node: ast.AST) -> bool:
    """``self.config.latents_mean``, ``cfg.lr``, ``hparams["std"]``: a value read out of an
    object named as a configuration (the last attribute's own name does not count)."""
    while type(node) in (ast.Attribute, ast.Subscript):
        node = node.value
        if (type(node) is ast.Name and config_named(node.id)) or (
                type(node) is ast.Attribute and config_named(node.attr)):
            return True
    return False


def _used_as_tensor(function: ast.AST, name: str) -> bool:
    """Whether the function calls a tensor-only method on parameter ``name`` (never rebound)."""
    found = False
    for node in ast.walk(function):
        if type(node) is ast.Name and type(node.ctx) is ast.Store and node.id == name:
            return False
        if (type(node) is ast.Call and type(node.func) is ast.Attribute and node.func.attr in _TENSOR_USES
                and type(node.func.value) is ast.Name and node.func.value.id == name):
            found = True
    return found
