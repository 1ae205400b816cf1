"""Classes of the file, read from their methods' summaries.

A class knows its methods, whether it is an ``nn.Module`` (a base qualified under ``torch.nn``,
or a base class of the file that is one: its instances hold parameters that require grad, and
calling one runs ``forward``), and its attributes: the join of what every method stores on
``self`` (modules and optimizers built in ``__init__``, what ``forward`` keeps), so that a method
reading ``self.post`` sees the ``nn.Conv1d`` that ``__init__`` stored.
"""

import ast
from collections import Counter
from typing import Dict, List, Optional

from flake8_tensorcopy.model.values import Value, join

FLAG = "flag:"  # a fact of an instance: what a steady flag of it holds (``flag:inplace=False``)


class ClassInfo:
    def __init__(self, node, bases: List[str]):
        self.node = node
        self.name = node.name
        self.bases = bases  # qualified names of the bases (``torch.nn.Module``, ``class:Base``)
        self.methods: Dict[str, object] = {}  # name -> FunctionInfo (``name.setter`` for a property's setter)
        self.properties: set = set()  # the methods read as attributes (``@property``)
        self.fields = dataclass_fields(node)  # a dataclass's fields its generated ``__init__`` takes, in order
        self.not_in_init = _fields_not_in_init(node, self.fields)  # ``x: T = field(init=False)``
        self.passed_fields: Dict[str, Value] = {}  # per field, the join of what the file's constructions pass
        self.attributes: Dict[str, Value] = {}
        self.is_module = False
        self.read = False  # whether the methods' summaries have been folded in
        self._steady: Optional[frozenset] = None  # ``steady_attributes``
        self._allocating: Optional[tuple] = None  # (the attributes it was worked out of, ``allocating_attribute``'s map)
        self._reads_of_aliases: dict = {}  # ``_read_from``

    def store(self, attribute: str, value: Value) -> None:
        known = self.attributes.get(attribute)
        self.attributes[attribute] = value if known is None else join(known, value)

    def steady_attributes(self, classes: Dict[str, "ClassInfo"]) -> frozenset:
        """The attributes of ``self`` its methods (and its bases' of the file) test (``if
        self.inplace:``, ``self.scale is None``, ``a if self.fast else b``) and store once, not
        ``training``, which a module's ``train()`` and ``eval()`` set: a flag a construction
        gives one of these holds for the instance's life, unless code elsewhere stores it
        (``Model.stores_elsewhere``). Worked out once: it is the code's, not the solve's."""
        if self._steady is None:
            tested, stored = set(), Counter()
            for info in self.lineage(classes):
                for method in info.methods.values():
                    receiver = method.names[0] if method.receiver_offset else None
                    tested |= tested_on_receiver(method.node, receiver)
                    stored.update(node.attr for node in ast.walk(method.node)
                                  if on_receiver(node, receiver) and type(node.ctx) is not ast.Load)
            self._steady = frozenset(name for name in tested if stored[name] == 1 and name != "training")
        return self._steady

    def allocating_attribute(self, storage, name: Optional[str] = None) -> Optional[str]:
        """The attribute that holds memory a method allocated as its own, not as an alias of
        another attribute's (``self.fc`` for ``self.anchor = self.fc.weight.data``): an instance's
        attributes holding one allocation are one object of that instance, by this name. One site
        may allocate anew per pass (``layers = [nn.Linear(w, w) for _ in range(2)]; self.stem =
        layers[0]; self.head = layers[1]``): attributes holding it as they are keep their own
        name, and an alias (``name``) joins the attribute it was read from (``self.stem`` of
        ``self.stem.weight.detach()``), else the one such holder there is."""
        if self._allocating is None or self._allocating[0] is not self.attributes:
            holders: Dict[object, List[str]] = {}
            for attribute, value in self.attributes.items():
                if not value.made:
                    for held in value.storages:
                        holders.setdefault(held, []).append(attribute)
            self._allocating = (self.attributes, holders)
        plain = self._allocating[1].get(storage, [])
        value = self.attributes.get(name) if name is not None else None
        if value is None or not value.made:
            return name if name in plain else plain[0] if len(plain) == 1 else None
        source = self._read_from(value.made)
        return source if source in plain else plain[0] if len(plain) == 1 else None

    def _read_from(self, made: frozenset) -> Optional[str]:
        """The attribute of the receiver an alias-making operation of the class reads (``fc`` of
        ``self.fc.weight.data``), if it reads one; worked out once per set of operations."""
        if made not in self._reads_of_aliases:
            positions = {(entry[0], entry[1]) for entry in made if type(entry) is tuple and len(entry) > 1}
            receivers = {method.names[0] for method in self.methods.values() if method.receiver_offset}
            found = None
            for node in ast.walk(self.node):
                if (getattr(node, "lineno", None), getattr(node, "col_offset", None)) not in positions:
                    continue
                while found is None and type(node) in (ast.Call, ast.Attribute, ast.Subscript):
                    inner = node.func if type(node) is ast.Call else node.value
                    if type(node) is ast.Attribute and type(inner) is ast.Name and inner.id in receivers:
                        found = node.attr
                    node = inner
                if found is not None:
                    break
            self._reads_of_aliases[made] = found
        return self._reads_of_aliases[made]

    def lineage(self, classes: Dict[str, "ClassInfo"]) -> List["ClassInfo"]:
        """This class, then its base classes of the file, depth first (Python's order for the
        single inheritance and mixins code mostly has), each once."""
        found = [self]
        for info in found:
            for base in info.bases:
                parent = classes.get(base[6:]) if base.startswith("class:") else None
                if parent is not None and parent not in found:
                    found.append(parent)
        return found

    def init_fields(self, classes: Dict[str, "ClassInfo"]) -> tuple:
        """The fields a dataclass's generated ``__init__`` takes, in its order: those of its base
        dataclasses of the file first, each once, not those declared ``field(init=False)``."""
        order, skipped = [], set()
        for info in reversed(self.lineage(classes)):
            for name in info.fields:
                if name not in order:
                    order.append(name)
            skipped |= info.not_in_init
        return tuple(name for name in order if name not in skipped)

    def method(self, name: str, classes: Dict[str, "ClassInfo"]):
        """The method ``name`` here or in a base class of the file."""
        for info in self.lineage(classes):
            found = info.methods.get(name)
            if found is not None:
                return found
        return None

    def attribute(self, name: str) -> Optional[Value]:
        return self.attributes.get(name)


def constructor_flags(initializer, call: ast.Call) -> dict:
    """The flags this construction gives the instance (``Clip(0.5)`` of a class whose
    ``__init__`` runs ``self.inplace = inplace``, ``inplace=False`` by default): per attribute
    ``__init__`` sets among its own statements from a parameter it never rebinds, the constant the
    call passes or the default (``True``, ``False`` or ``None``: its truth, and whether it is None).
    Whether a flag holds for good is the class's to say (``ClassInfo.steady_attributes``)."""
    node = initializer.node
    if not initializer.names or any(type(argument) is ast.Starred for argument in call.args) \
            or any(keyword.arg is None for keyword in call.keywords):
        return {}
    receiver = initializer.names[0]
    kept = {statement.targets[0].attr: statement.value.id for statement in node.body
            if type(statement) is ast.Assign and len(statement.targets) == 1
            and on_receiver(statement.targets[0], receiver) and type(statement.value) is ast.Name
            and statement.value.id in initializer.names and statement.value.id not in initializer.bound_names}
    if not kept:
        return {}
    arguments = node.args
    positional = arguments.posonlyargs + arguments.args
    given = {parameter.arg: default for parameter, default in zip(
        positional[len(positional) - len(arguments.defaults):], arguments.defaults)}
    given.update((parameter.arg, default) for parameter, default in zip(arguments.kwonlyargs, arguments.kw_defaults)
                 if default is not None)
    given.update((parameter.arg, argument) for parameter, argument in zip(positional[1:], call.args))
    given.update((keyword.arg, keyword.value) for keyword in call.keywords)
    return {attribute: None if given[parameter].value is None else bool(given[parameter].value)
            for attribute, parameter in kept.items() if type(given.get(parameter)) is ast.Constant}


def on_receiver(node, receiver: Optional[str]) -> bool:
    """``self.<attribute>`` of the method whose receiver is named ``receiver``."""
    return type(node) is ast.Attribute and type(node.value) is ast.Name and node.value.id == receiver


def tested_on_receiver(function_node, receiver: Optional[str]) -> set:
    """The attributes of the receiver a method's conditions test (``if self.inplace:``,
    ``self.scale is None``, ``a if self.fast else b``)."""
    return {part.attr for node in ast.walk(function_node) if type(node) in (ast.If, ast.IfExp, ast.While, ast.Assert)
            for part in ast.walk(node.test) if on_receiver(part, receiver)}


def stores_elsewhere(tree: ast.Module) -> Counter:
    """Per attribute name, the statements of the file storing it on something other than the
    receiver of the method they are in (``clip.inplace = True``, ``self.act.inplace = False``);
    a ``setattr`` with a computed name may store any of them."""
    own = set()
    for holder in ast.walk(tree):
        if type(holder) is not ast.ClassDef:
            continue
        for method in holder.body:
            if type(method) in (ast.FunctionDef, ast.AsyncFunctionDef) and method.args.args and not any(
                    type(decorator) is ast.Name and decorator.id == "staticmethod" for decorator in method.decorator_list):
                receiver = method.args.args[0].arg  # a static method's first parameter is an object handed in
                own.update(id(part) for part in ast.walk(method) if on_receiver(part, receiver))
    found = Counter()
    for node in ast.walk(tree):
        if type(node) is ast.Attribute and type(node.ctx) is not ast.Load and id(node) not in own:
            found[node.attr] += 1
        elif type(node) is ast.Attribute and node.attr == "__dict__" or type(node) is ast.Call \
                and type(node.func) is ast.Name and node.func.id == "vars" and node.args:
            return _AnyAttribute()  # ``m.__dict__.update(options)``, ``vars(m)[k] = v``: any name
        elif type(node) is ast.Call and (type(node.func) is ast.Name and node.func.id == "setattr" and len(node.args) > 1
                                         or type(node.func) is ast.Attribute and node.func.attr == "__setattr__"
                                         and len(node.args) > 1):
            name = node.args[1] if type(node.func) is ast.Name or len(node.args) > 2 else node.args[0]
            if type(name) is not ast.Constant or type(name.value) is not str:
                return _AnyAttribute()
            found[name.value] += 1
    return found


class _AnyAttribute(Counter):
    """Every attribute stored elsewhere (a ``setattr`` with a computed name)."""

    def __missing__(self, key):
        return 1


def is_property(function: ast.FunctionDef) -> bool:
    """``@property`` or ``@cached_property``: reading the attribute runs the method."""
    for decorator in function.decorator_list:
        name = decorator.id if type(decorator) is ast.Name else getattr(decorator, "attr", "")
        if name in ("property", "cached_property"):
            return True
    return False


def property_accessor(function: ast.FunctionDef) -> str:
    """``.setter`` for ``@x.setter`` (and ``.deleter``), else empty: a property's other accessors
    share the getter's name."""
    for decorator in function.decorator_list:
        if type(decorator) is ast.Attribute and decorator.attr in ("setter", "deleter"):
            return "." + decorator.attr
    return ""


def _fields_not_in_init(node: ast.ClassDef, fields: tuple) -> frozenset:
    """The fields declared ``field(init=False)``: the generated ``__init__`` takes no argument for them."""
    return frozenset(statement.target.id for statement in node.body if type(statement) is ast.AnnAssign
                     and type(statement.target) is ast.Name and statement.target.id in fields
                     and type(statement.value) is ast.Call and any(
                         keyword.arg == "init" and type(keyword.value) is ast.Constant and keyword.value.value is False
                         for keyword in statement.value.keywords))


def dataclass_fields(node: ast.ClassDef) -> tuple:
    """The fields of a ``@dataclass`` or a ``typing.NamedTuple`` class (annotated names of its
    body, not ``ClassVar``), in the order its generated ``__init__`` takes them; empty for another
    class or one defining ``__init__``."""
    def named(expression, wanted: str) -> bool:
        expression = expression.func if type(expression) is ast.Call else expression
        return (expression.id if type(expression) is ast.Name else getattr(expression, "attr", "")) == wanted

    if not (any(named(decorator, "dataclass") for decorator in node.decorator_list)
            or any(named(base, "NamedTuple") for base in node.bases)) or any(
            type(statement) in (ast.FunctionDef, ast.AsyncFunctionDef) and statement.name == "__init__"
            for statement in node.body):
        return ()
    return tuple(statement.target.id for statement in node.body if type(statement) is ast.AnnAssign
                 and type(statement.target) is ast.Name and "ClassVar" not in ast.dump(statement.annotation)
                 and "KW_ONLY" not in ast.dump(statement.annotation))
