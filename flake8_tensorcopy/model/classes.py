"""Classes of the file, read from their methods' summaries.

A class knows its methods, whether it is an ``nn.Module`` (a base qualified under ``torch.nn``,
or a base class of the file that is one: its instances hold parameters that require grad, and
calling one runs ``forward``), and its attributes: the join of what every method stores on
``self`` (modules and optimizers built in ``__init__``, what ``forward`` keeps), so that a method
reading ``self.post`` sees the ``nn.Conv1d`` that ``__init__`` stored.
"""

import ast
from typing import Dict, List, Optional

from flake8_tensorcopy.model.values import Value, join


class ClassInfo:
    def __init__(self, node, bases: List[str]):
        self.node = node
        self.name = node.name
        self.bases = bases  # qualified names of the bases (``torch.nn.Module``, ``class:Base``)
        self.methods: Dict[str, object] = {}  # name -> FunctionInfo (``name.setter`` for a property's setter)
        self.properties: set = set()  # the methods read as attributes (``@property``)
        self.fields = dataclass_fields(node)  # a dataclass's fields its generated ``__init__`` takes, in order
        self.passed_fields: Dict[str, Value] = {}  # per field, the join of what the file's constructions pass
        self.attributes: Dict[str, Value] = {}
        self.is_module = False
        self.read = False  # whether the methods' summaries have been folded in

    def store(self, attribute: str, value: Value) -> None:
        known = self.attributes.get(attribute)
        self.attributes[attribute] = value if known is None else join(known, value)

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

    def method(self, name: str, classes: Dict[str, "ClassInfo"]):
        """The method ``name`` here or in a base class of the file."""
        for info in self.lineage(classes):
            found = info.methods.get(name)
            if found is not None:
                return found
        return None

    def attribute(self, name: str) -> Optional[Value]:
        return self.attributes.get(name)


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
                 and type(statement.target) is ast.Name and "ClassVar" not in ast.dump(statement.annotation))
