"""Classes of the file, read from their methods' summaries.

A class knows its methods, whether it is an ``nn.Module`` (a base qualified under ``torch.nn``,
or a base class of the file that is one: its instances hold parameters that require grad, and
calling one runs ``forward``), and its attributes: the join of what every method stores on
``self`` (modules and optimizers built in ``__init__``, what ``forward`` keeps), so that a method
reading ``self.post`` sees the ``nn.Conv1d`` that ``__init__`` stored.
"""

from typing import Dict, List, Optional

from flake8_tensorcopy.model.values import Value, join


class ClassInfo:
    def __init__(self, node, bases: List[str]):
        self.node = node
        self.name = node.name
        self.bases = bases  # qualified names of the bases (``torch.nn.Module``, ``class:Base``)
        self.methods: Dict[str, object] = {}  # name -> FunctionInfo
        self.attributes: Dict[str, Value] = {}
        self.is_module = False
        self.read = False  # whether the methods' summaries have been folded in

    def store(self, attribute: str, value: Value) -> None:
        known = self.attributes.get(attribute)
        self.attributes[attribute] = value if known is None else join(known, value)

    def method(self, name: str, classes: Dict[str, "ClassInfo"]):
        """The method ``name`` here or in a base class of the file."""
        found = self.methods.get(name)
        if found is not None:
            return found
        for base in self.bases:
            if base.startswith("class:") and base[6:] in classes and base[6:] != self.name:
                found = classes[base[6:]].method(name, classes)
                if found is not None:
                    return found
        return None

    def attribute(self, name: str) -> Optional[Value]:
        return self.attributes.get(name)
