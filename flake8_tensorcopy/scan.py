"""The cheap first look at a file: a walk of the stdlib ast flake8 already built.

It decides whether any rule could report, so that most files never reach LibCST; it imports
neither LibCST nor torch (the flake8 plugin imports the engine only when a file needs it).
"""

import ast
from typing import Set

from flake8_tensorcopy.data import INPLACE_METHODS

_ARRAY_LIBRARIES = frozenset({"torch", "numpy"})

# numpy methods and functions that write their array in place.
NUMPY_INPLACE_METHODS = frozenset({"sort", "fill", "put", "partition", "resize", "itemset"})
NUMPY_INPLACE_FUNCTIONS = frozenset({"numpy.copyto", "numpy.random.shuffle", "numpy.put", "numpy.place",
                                     "numpy.putmask", "numpy.fill_diagonal"})

# Names of calls that write something in place (see analysis.aliases for the full story).
WRITE_CALLS = (
    INPLACE_METHODS
    | NUMPY_INPLACE_METHODS
    | {name.rsplit(".", 1)[-1] for name in NUMPY_INPLACE_FUNCTIONS}
    | {"step", "load_state_dict"}
)

# Calls that prove a tensor without any import of torch (``x.detach()``): with neither these
# nor an import of torch or numpy, no rule can know a value is a tensor.
TENSOR_EVIDENCE_CALLS = frozenset({"detach", "detach_", "new_tensor", "new_zeros", "new_ones", "new_empty",
                                   "new_full", "requires_grad_", "type_as"})


class Features:
    """What a cheap walk of the stdlib ast saw: enough to know which rules may report."""

    __slots__ = ("called", "attributes", "writes", "may_hold_tensors", "identity_tests")

    def __init__(self, called: Set[str], attributes: Set[str], writes: bool, may_hold_tensors: bool,
                 identity_tests: bool):
        self.called = called  # last names of every call, import aliases resolved
        self.attributes = attributes  # every attribute name read or written
        self.writes = writes  # some in-place write: ``x.add_()``, ``a[i] =``, ``a += ``, ...
        self.may_hold_tensors = may_hold_tensors  # imports torch or numpy, or calls .detach()
        self.identity_tests = identity_tests  # some ``a is b`` / ``a is not b``


def scan(tree: ast.AST) -> Features:
    """One walk of the ast flake8 already built (about a tenth of a LibCST parse).

    Most files of a project have nothing any rule could flag; they never reach LibCST.
    """
    called = set()
    attributes = set()
    identity_tests = False
    renamed = {}
    writes = False
    imports_arrays = False
    for node in ast.walk(tree):
        node_type = type(node)
        if node_type is ast.Attribute:
            attributes.add(node.attr)
        elif node_type is ast.Call:
            func = node.func
            if type(func) is ast.Attribute:
                called.add(func.attr)
            elif type(func) is ast.Name:
                called.add(func.id)
            if not writes and node.keywords:
                writes = any(keyword.arg in ("out", "inplace") for keyword in node.keywords)
        elif node_type is ast.Compare and not identity_tests:
            # ``a is b`` between two values (``x is None`` and friends cannot be about tensors)
            identity_tests = any(type(op) in (ast.Is, ast.IsNot) for op in node.ops) and not any(
                type(operand) is ast.Constant for operand in [node.left, *node.comparators]
            )
        elif node_type is ast.AugAssign:
            writes = True
        elif node_type is ast.Assign:
            if not writes:
                writes = any(type(target) is ast.Subscript for target in node.targets)
        elif node_type is ast.ImportFrom:
            module = (node.module or "").split(".", 1)[0]
            imports_arrays = imports_arrays or (module in _ARRAY_LIBRARIES and not node.level)
            for alias in node.names:
                if alias.asname:
                    renamed[alias.asname] = alias.name
        elif node_type is ast.Import:
            imports_arrays = imports_arrays or any(
                alias.name.split(".", 1)[0] in _ARRAY_LIBRARIES for alias in node.names
            )
    called.update(renamed[name] for name in called.intersection(renamed))
    if not writes:
        writes = not called.isdisjoint(WRITE_CALLS) or any("train" in name or "fit" in name for name in called)
    may_hold_tensors = imports_arrays or not called.isdisjoint(TENSOR_EVIDENCE_CALLS)
    return Features(called, attributes, writes, may_hold_tensors, identity_tests)
