"""Autograd provenance: may a value require grad, and is it a leaf?

Sources: ``requires_grad=True`` factories, ``requires_grad_()``, ``nn.Parameter``, parameters of
a module, outputs of calling a module; anything computed from those outside ``no_grad``.
Stops: ``detach()``, ``item()``, ``tolist()``, ``numpy()``, ``torch.tensor(...)``, ``.data``.
The walk stores the answer on each name's Binding (``grad``); rules ask ``grad_of``.
"""

from typing import Optional

import libcst as cst

from flake8_tensorcopy.analysis.scope import INSTANCE, LEAF, MODULE, NON_LEAF
from flake8_tensorcopy.analysis.conventions import parameter_free_layer
from flake8_tensorcopy.analysis.facts import Layer
from flake8_tensorcopy.analysis.tensors import MODULE_PARAMETERS
from flake8_tensorcopy.data import LEGACY_CONSTRUCTORS, METHODS_RETURNING_TENSOR, METHODS_RETURNING_TENSOR_SEQUENCE

# Methods whose result does not require grad: detaching ones, plain Python values, fresh
# tensors, and integer or boolean results (indices, masks), which cannot require grad.
GRAD_STOPS = frozenset(
    {"detach", "item", "tolist", "numpy", "retain_grad", "backward", "size", "dim", "numel", "data_ptr",
     "untyped_storage", "stride", "is_contiguous", "new_tensor", "new_zeros", "new_ones", "new_empty",
     "new_full", "argmax", "argmin", "argsort", "nonzero", "eq", "ne", "gt", "ge", "lt", "le", "isnan",
     "isinf", "isfinite", "isclose", "bool", "long", "int", "short", "char", "byte", "logical_and",
     "logical_or", "logical_not", "logical_xor", "any", "all", "count_nonzero", "bincount", "equal"}
)

# Calls returning their argument itself or an alias of it: same provenance.
_SAME_TENSOR = LEGACY_CONSTRUCTORS | {"torch.as_tensor", "torch.asarray"}

# torch functions that build a fresh leaf from data (``requires_grad=True`` makes it require grad).
_FROM_DATA = frozenset({"torch.tensor", "torch.as_tensor", "torch.asarray", "torch.from_numpy"})


def _requires_grad_keyword(call: cst.Call) -> Optional[bool]:
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == "requires_grad":
            return type(arg.value) is cst.Name and arg.value.value == "True"
    return None


class GradProvenance:
    """Answers ``grad_of(expression)`` at the current point of ``analysis``'s walk."""

    def __init__(self, analysis):
        self.analysis = analysis

    def grad_of(self, node: cst.BaseExpression) -> Optional[str]:
        node_type = type(node)
        if node_type is cst.Name:
            binding = self.analysis.lookup(node.value)
            return binding.grad if binding is not None else None
        if node_type is cst.Attribute:
            return self._attribute(node)
        computed = self._computed(node)
        if computed is not None and self.analysis.no_grad_depth:
            return None  # nothing computed under no_grad records a graph
        return computed

    def _attribute(self, node: cst.Attribute) -> Optional[str]:
        attr = node.attr.value
        if attr in ("data", "grad"):
            return None
        base = node.value
        if type(base) is cst.Name:
            binding = self.analysis.lookup(base.value)
            if binding is not None and binding.kind == INSTANCE:
                held = binding.attrs.get(attr)
                return held.grad if held is not None else None
            if binding is not None and binding.kind == MODULE and attr in MODULE_PARAMETERS:
                return LEAF
        if attr in ("T", "mT", "H", "mH", "real", "imag") and self.grad_of(base) is not None:
            return None if self.analysis.no_grad_depth else NON_LEAF
        return None

    def _computed(self, node: cst.BaseExpression) -> Optional[str]:
        node_type = type(node)
        if node_type is cst.Call:
            return self._call(node)
        if node_type is cst.BinaryOperation:
            return NON_LEAF if self.grad_of(node.left) or self.grad_of(node.right) else None
        if node_type is cst.UnaryOperation:
            return NON_LEAF if self.grad_of(node.expression) else None
        if node_type is cst.Subscript:
            return NON_LEAF if self.grad_of(node.value) else None
        if node_type in (cst.List, cst.Tuple):
            return NON_LEAF if any(self.grad_of(element.value) for element in node.elements) else None
        if node_type is cst.IfExp:
            return NON_LEAF if self.grad_of(node.body) or self.grad_of(node.orelse) else None
        return None

    def layer_of(self, func: cst.BaseExpression) -> Optional[str]:
        """The torch.nn class a called module was made from (``nn.ZeroPad2d``), if known."""
        binding = None
        if type(func) is cst.Name:
            binding = self.analysis.lookup(func.value)
        elif type(func) is cst.Attribute and type(func.value) is cst.Name:
            owner = self.analysis.lookup(func.value.value)
            if owner is not None and owner.kind == INSTANCE:
                binding = owner.attrs.get(func.attr.value)
        origin = binding.origin if binding is not None else None
        return origin.qualname if type(origin) is Layer else None

    def _call(self, node: cst.Call) -> Optional[str]:
        analysis = self.analysis
        func = node.func
        qualname = analysis.qualname(func)
        if qualname is not None:
            if qualname in ("torch.nn.Parameter", "torch.nn.parameter.Parameter"):
                return None if _requires_grad_keyword(node) is False else LEAF
            requested = _requires_grad_keyword(node)
            if requested is not None:
                return LEAF if requested else None
            if qualname in _SAME_TENSOR and len(node.args) == 1:
                return self.grad_of(node.args[0].value)
            if qualname in _FROM_DATA or not qualname.startswith("torch."):
                return None
            if any(self.grad_of(arg.value) for arg in node.args):
                return NON_LEAF
            return None
        if analysis.kind_of(func) == MODULE:
            layer = self.layer_of(func)
            if layer is not None and parameter_free_layer(layer):
                return NON_LEAF if any(self.grad_of(arg.value) for arg in node.args) else None
            return NON_LEAF  # a module's forward output: its parameters require grad
        if type(func) is not cst.Attribute:
            return None
        method = func.attr.value
        receiver = func.value
        if method in GRAD_STOPS:
            return None
        if method == "requires_grad_":
            current = self.grad_of(receiver)
            off = node.args and type(node.args[0].value) is cst.Name and node.args[0].value.value == "False"
            return None if off else current or LEAF
        if method in METHODS_RETURNING_TENSOR or method in METHODS_RETURNING_TENSOR_SEQUENCE:
            if self.grad_of(receiver) or any(self.grad_of(arg.value) for arg in node.args):
                return NON_LEAF
        return None
