"""Grad state: may a value require grad (yes, no, unknown), is it a leaf, and why we think so.

Yes: ``requires_grad=True`` factories, ``requires_grad_()``, ``nn.Parameter``, parameters and
``weight``/``bias`` of a module, outputs of calling a module, a name that ``.backward()`` is
called on, and anything computed from those outside ``no_grad``. No: anything computed under
``torch.no_grad()``/``inference_mode`` (blocks and decorators), ``detach()``, ``.data``,
``.grad``, integer and boolean results (indices, masks, ``dtype=torch.long``: they cannot
require grad), torch factories without ``requires_grad=True``, ``torch.tensor(...)``, buffers
and ``state_dict()`` values, constants, and anything computed only from those. Unknown
otherwise: an unannotated parameter, the result of an unknown call. The walk stores the state
on each name's Binding (``grad``); rules ask ``grad_of``.
"""

from typing import Optional

import libcst as cst

from flake8_tensorcopy.knowledge.conventions import loss_named, parameter_free_layer
from flake8_tensorcopy.analysis.facts import NO_BACKWARD, BackwardCalls, Layer
from flake8_tensorcopy.analysis.scope import (
    INSTANCE,
    LEAF,
    MODULE,
    NO_GRAD,
    NON_LEAF,
    STATE_DICT,
    TENSOR,
    TENSOR_SEQ,
    UNKNOWN_GRAD,
    Grad,
    Requires,
    Scope,
)
from flake8_tensorcopy.analysis.statements import children_of, is_name, keyword_value, names_under, receiver_of
from flake8_tensorcopy.analysis.tensors import MODULE_BUFFERS, MODULE_PARAMETERS, module_attributes
from flake8_tensorcopy.data import (
    LEGACY_CONSTRUCTORS,
    METHODS_RETURNING_TENSOR,
    METHODS_RETURNING_TENSOR_SEQUENCE,
    METHODS_RETURNING_TENSOR_WITHOUT_ARGUMENTS,
)

DETACHED = NO_GRAD.because("detached")
INTEGER = NO_GRAD.because("an integer or boolean tensor")
UNDER_NO_GRAD = NO_GRAD.because("computed under torch.no_grad()")
CONSTANT = NO_GRAD.because("a constant")
FROM_DATA = NO_GRAD.because("a new tensor made from data, without requires_grad=True")
FACTORY = NO_GRAD.because("made by a torch factory without requires_grad=True")
STATE = NO_GRAD.because("a buffer or state_dict() value")

# Methods whose result cannot require grad: detaching ones and plain Python values.
_DETACHING = frozenset(
    {"detach", "item", "tolist", "numpy", "backward", "size", "dim", "numel", "data_ptr", "untyped_storage",
     "stride", "is_contiguous", "new_tensor", "new_zeros", "new_ones", "new_empty", "new_full"}
)
# Methods and torch functions whose result is integer or boolean (indices, masks, counts).
_INTEGER_RESULTS = frozenset(
    {"argmax", "argmin", "argsort", "nonzero", "eq", "ne", "gt", "ge", "lt", "le", "isnan", "isinf", "isfinite",
     "isclose", "bool", "long", "int", "short", "char", "byte", "logical_and", "logical_or", "logical_not",
     "logical_xor", "any", "all", "count_nonzero", "bincount", "equal", "randint", "randint_like", "randperm",
     "multinomial", "bucketize", "searchsorted", "one_hot", "argwhere", "tril_indices", "triu_indices"}
)
_INTEGER_DTYPES = frozenset(
    "torch." + name for name in ("long", "int64", "int", "int32", "short", "int16", "int8", "uint8", "bool")
) | {"torch.LongTensor", "torch.IntTensor", "torch.BoolTensor", "torch.ByteTensor"}
# torch functions that allocate a fresh tensor from shapes or values: it requires grad only
# with ``requires_grad=True``.
FACTORIES = frozenset(
    "torch." + name
    for name in ("zeros", "ones", "empty", "full", "rand", "randn", "arange", "linspace", "logspace", "eye",
                 "zeros_like", "ones_like", "empty_like", "full_like", "rand_like", "randn_like", "normal")
)
# Calls returning their argument itself or an alias of it: the same state.
_SAME_TENSOR = LEGACY_CONSTRUCTORS | {"torch.as_tensor", "torch.asarray"}
_FROM_DATA = frozenset({"torch.tensor", "torch.from_numpy", "torch.frombuffer"})
_TENSOR_METHODS = METHODS_RETURNING_TENSOR | METHODS_RETURNING_TENSOR_SEQUENCE | METHODS_RETURNING_TENSOR_WITHOUT_ARGUMENTS
_VIEW_ATTRIBUTES = frozenset({"T", "mT", "H", "mH", "real", "imag", "values"})
_NONE = frozenset()
# torch functions that run backward through their tensor arguments.
BACKWARD_FUNCTIONS = frozenset({"torch.autograd.grad", "torch.autograd.backward"})
_CONSTANTS = (cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)


def _callee_name(node: cst.BaseExpression, receiver: Optional[str]) -> Optional[str]:
    """``f`` for ``f(...)`` and, in a method whose object goes by ``receiver``, for
    ``self.f(...)``: a call that may be of a function of this module."""
    if type(node) is not cst.Call:
        return None
    func = node.func
    if type(func) is cst.Name:
        return func.value
    if type(func) is cst.Attribute and receiver is not None and is_name(func.value, receiver):
        return func.attr.value
    return None


def _named(function) -> str:
    return f"'{function.name.value}'" if type(function) is cst.FunctionDef else "the module"


def combine(states) -> Grad:
    """The state of a value computed from values in ``states``: it may require grad if one may,
    cannot if none can, else unknown."""
    result = CONSTANT
    for state in states:
        if state:
            return NON_LEAF.because(state.evidence if state.leaf is False else NON_LEAF.evidence)
        if not state.cannot_require:
            result = UNKNOWN_GRAD
    return result


class GradProvenance:
    """Answers ``grad_of(expression)`` at the current point of ``analysis``'s walk."""

    def __init__(self, analysis):
        self.analysis = analysis
        self._backward_calls = None  # id(function or module) -> BackwardCalls, found on first use
        self._backpropagated = {}  # function name -> how a caller backpropagates its result

    def grad_of(self, node: cst.BaseExpression, scope: Optional[Scope] = None) -> Grad:
        scope = scope if scope is not None else self.analysis.scope
        node_type = type(node)
        if node_type is cst.Name:
            return self._name(node.value, scope)
        if node_type in _CONSTANTS:
            return CONSTANT
        if node_type is cst.Attribute:
            return self._attribute(node, scope)
        computed = self._computed(node, scope)
        if computed.graph_non_leaf and self.analysis.no_grad_depth:
            return UNDER_NO_GRAD  # nothing computed under no_grad records a graph
        return computed

    def item_grad(self, iterable: cst.BaseExpression, scope: Scope) -> Grad:
        """The state of the items a ``for`` over ``iterable`` yields."""
        if type(iterable) is cst.Call and type(iterable.func) is cst.Attribute:
            method = iterable.func.attr.value
            if method in ("parameters", "named_parameters"):
                return LEAF
            if method in ("items", "values") and self.analysis.inference.kind_of(iterable.func.value, scope) == STATE_DICT:
                return STATE
        if self.analysis.inference.kind_of(iterable, scope) in (TENSOR, TENSOR_SEQ):
            return self.grad_of(iterable, scope)
        return UNKNOWN_GRAD

    def _name(self, name: str, scope: Scope) -> Grad:
        binding = scope.lookup(name)
        if binding is None:
            return UNKNOWN_GRAD
        if binding.grad.requires is Requires.UNKNOWN and name in self.backward_receivers():
            return NON_LEAF.because(f"{name}.backward() is called")
        return binding.grad

    def no_backward_calls(self) -> None:
        """The file calls no ``backward()`` and no ``autograd.grad()``: nothing to look for."""
        self._backward_calls = {}
        self._backpropagated = {}

    def _backward_here(self) -> BackwardCalls:
        """The backward calls of the function being walked (of the module at top level), all
        found in one walk of the module the first time one is asked for."""
        self._find_backward_calls()
        analysis = self.analysis
        scope_node = analysis.function if analysis.function is not None else analysis.module
        return self._backward_calls.get(id(scope_node), NO_BACKWARD)

    def backward_receivers(self) -> frozenset:
        """Names ``x`` of the function being walked with ``x.backward()`` somewhere in it: that
        proves ``x`` a graph output that requires grad (use evidence, wherever it comes)."""
        return self._backward_here().receivers

    def _find_backward_calls(self) -> None:
        if self._backward_calls is None:
            self._backward_calls, self._backpropagated = find_backward_calls(self.analysis.module)

    def backpropagated(self) -> Optional[str]:
        """How a caller in this module backpropagates what the function being walked returns
        (None when none does): it computes a loss, so its torch results may require grad."""
        function = self.analysis.function
        if function is None:
            return None
        self._find_backward_calls()
        return self._backpropagated.get(function.name.value)

    def _attribute(self, node: cst.Attribute, scope: Scope) -> Grad:
        attr = node.attr.value
        if attr == "data":
            return DETACHED.because("'.data' is detached")
        if attr == "grad":
            return DETACHED.because("a gradient")
        if attr == "indices":
            return INTEGER
        base = node.value
        if type(base) is cst.Name:
            binding = scope.lookup(base.value)
            attributes = module_attributes(binding) if binding is not None else None
            if attributes is not None:
                held = attributes.get(attr)
                if held is not None:
                    return held.grad
        inference = self.analysis.inference
        if inference.kind_of(base, scope) == MODULE:
            if attr in MODULE_PARAMETERS:
                return LEAF.because(f"'{attr}' is a parameter of a module")
            if attr in MODULE_BUFFERS:
                return STATE
        if attr in _VIEW_ATTRIBUTES:
            state = self.grad_of(base, scope)
            return NON_LEAF.because(state.evidence) if state else state
        stored = inference.stored_graph_attribute(node, scope)
        return stored if stored is not None else UNKNOWN_GRAD

    def _computed(self, node: cst.BaseExpression, scope: Scope) -> Grad:
        node_type = type(node)
        if node_type is cst.Call:
            return self._call(node, scope)
        if node_type is cst.BinaryOperation:
            return combine((self.grad_of(node.left, scope), self.grad_of(node.right, scope)))
        if node_type is cst.UnaryOperation:
            return combine((self.grad_of(node.expression, scope),))
        if node_type is cst.Comparison:
            return INTEGER
        if node_type is cst.Subscript:
            if self.analysis.inference.kind_of(node.value, scope) == STATE_DICT:
                return STATE  # ``state_dict()`` detaches its values (keep_vars=False)
            return combine((self.grad_of(node.value, scope),))
        if node_type in (cst.List, cst.Tuple):
            return combine(self.grad_of(element.value, scope) for element in node.elements)
        if node_type in (cst.ListComp, cst.GeneratorExp):
            inner = self.analysis.inference.comprehension_scope(node.for_in, scope)
            return combine((self.grad_of(node.elt, inner),))
        if node_type is cst.IfExp:
            body, orelse = self.grad_of(node.body, scope), self.grad_of(node.orelse, scope)
            return body if body == orelse else combine((body, orelse))
        return UNKNOWN_GRAD

    def layer_of(self, func: cst.BaseExpression, scope: Optional[Scope] = None) -> Optional[str]:
        """The torch.nn class a called module was made from (``nn.ZeroPad2d``), if known."""
        scope = scope if scope is not None else self.analysis.scope
        binding = None
        if type(func) is cst.Name:
            binding = scope.lookup(func.value)
        elif type(func) is cst.Attribute and type(func.value) is cst.Name:
            owner = scope.lookup(func.value.value)
            if owner is not None and owner.kind == INSTANCE:
                binding = owner.attrs.get(func.attr.value)
        origin = binding.origin if binding is not None else None
        return origin.qualname if type(origin) is Layer else None

    def _arguments(self, call: cst.Call, scope: Scope) -> Grad:
        """The combined state of a call's positional arguments (keywords are options)."""
        return combine(self.grad_of(arg.value, scope) for arg in call.args if arg.keyword is None)

    def _call(self, node: cst.Call, scope: Scope) -> Grad:
        inference = self.analysis.inference
        func = node.func
        qualname = inference.qualname(func, scope)
        requested = keyword_value(node, "requires_grad")
        if qualname is not None:
            if qualname in ("torch.nn.Parameter", "torch.nn.parameter.Parameter"):
                return NO_GRAD.because("requires_grad=False") if requested is not None and not is_name(requested, "True") \
                    else LEAF.because("an nn.Parameter")
            if requested is not None:
                return LEAF.because("requires_grad=True") if is_name(requested, "True") else NO_GRAD.because(
                    "requires_grad=False")
            if not qualname.startswith("torch."):
                return UNKNOWN_GRAD
            if self._integer_dtype(keyword_value(node, "dtype"), scope) or qualname.rsplit(".", 1)[-1] in _INTEGER_RESULTS:
                return INTEGER
            if qualname in _SAME_TENSOR and len(node.args) == 1:
                return self.grad_of(node.args[0].value, scope)
            if qualname in _FROM_DATA or qualname in _SAME_TENSOR:
                return FROM_DATA
            if qualname in FACTORIES:
                return FACTORY
            return self._loss_or(qualname, self._arguments(node, scope))
        if inference.kind_of(func, scope) == MODULE:
            layer = self.layer_of(func, scope)
            if layer is not None and parameter_free_layer(layer):
                return self._arguments(node, scope)  # a loss layer too: its input's state, as conventions say
            return NON_LEAF.because("the output of a module, whose parameters require grad")
        if type(func) is not cst.Attribute:
            return UNKNOWN_GRAD
        method = func.attr.value
        receiver = func.value
        if method in _DETACHING:
            return DETACHED
        if method in _INTEGER_RESULTS:
            return INTEGER
        if method in ("to", "type") and any(
            self._integer_dtype(arg.value, scope) for arg in node.args if arg.keyword is None or arg.keyword.value == "dtype"
        ):
            return INTEGER
        if method == "requires_grad_":
            if node.args and not is_name(node.args[0].value, "True"):
                return NO_GRAD.because("requires_grad_(False) was called")
            current = self.grad_of(receiver, scope)
            return current if current else LEAF.because("requires_grad_() was called")
        if method in _TENSOR_METHODS:
            return combine([self.grad_of(receiver, scope)] + [self.grad_of(arg.value, scope) for arg in node.args
                                                             if arg.keyword is None])
        return UNKNOWN_GRAD

    def _loss_or(self, callee: str, state: Grad) -> Grad:
        """A functional loss (``F.mse_loss``) of inputs of unknown state computes a loss to
        backpropagate: it may require grad; so does any torch function of them in a function
        whose result a caller backpropagates. Inputs known not to require grad keep it out."""
        if state.requires is not Requires.UNKNOWN:
            return state
        if loss_named(callee.rsplit(".", 1)[-1]):
            return NON_LEAF.because("a loss computed outside no_grad")
        backpropagated = self.backpropagated()
        if backpropagated is not None:
            return NON_LEAF.because(f"computed by {callee.rsplit('.', 1)[-1]}() in "
                                    f"{_named(self.analysis.function)}, whose caller {backpropagated}")
        return state

    def _integer_dtype(self, node: Optional[cst.BaseExpression], scope: Scope) -> bool:
        if node is None:
            return False
        if type(node) is cst.Name and node.value in ("int", "bool") and scope.lookup(node.value) is None:
            return True
        return self.analysis.inference.qualname(node, scope) in _INTEGER_DTYPES


def find_backward_calls(module: cst.Module) -> tuple:
    """In one walk of the module: (id(function or module) -> its BackwardCalls; name of a
    function of the module -> how a caller backpropagates its result, as in ``loss = f(...)``
    then ``loss.backward()``, or ``f(...).backward()`` through method chains)."""
    found: dict = {}
    results = []  # (caller, name, callee) for each ``name = callee(...)``
    direct = []  # (caller, callee) for each ``callee(...)...backward()``
    # (node, the functions around it, the name of the object of the method around it, whether
    # it is a statement of a class body)
    stack = [(module, (module,), None, False)]
    while stack:
        node, owners, receiver, in_class = stack.pop()
        node_type = type(node)
        if node_type is cst.FunctionDef:
            owners += (node,)
            if in_class:
                receiver = receiver_of(node)
        elif node_type is cst.Assign and len(node.targets) == 1 and type(node.targets[0].target) is cst.Name:
            callee = _callee_name(node.value, receiver)
            if callee is not None:
                results.append((owners[-1], node.targets[0].target.value, callee))
        elif node_type is cst.Call:
            func = node.func
            if type(func) is cst.Attribute and func.attr.value == "backward":
                innermost = found.setdefault(id(owners[-1]), BackwardCalls())
                if type(func.value) is cst.Name:
                    innermost.receivers.add(func.value.value)
                names = names_under([func.value] + [arg.value for arg in node.args])
                for owner in owners:
                    found.setdefault(id(owner), BackwardCalls()).reached.update(names)
                called = func.value  # ``f(x).sum().backward()``: back through the method chain to f(x)
                while (type(called) is cst.Call and type(called.func) is cst.Attribute
                       and _callee_name(called, receiver) is None):
                    called = called.func.value
                callee = _callee_name(called, receiver)
                if callee is not None:
                    direct.append((owners[-1], callee))
            elif type(func) is cst.Name or (type(func) is cst.Attribute and func.attr.value == "grad"):
                for owner in owners:
                    found.setdefault(id(owner), BackwardCalls()).function_calls.append(node)
        in_body = node_type is cst.ClassDef or (in_class and node_type is cst.IndentedBlock)
        stack.extend((child, owners, receiver, in_body) for child in children_of(node))
    backpropagated: dict = {}
    for owner, name, callee in results:
        if name in found.get(id(owner), NO_BACKWARD).receivers:
            backpropagated.setdefault(callee, f"{_named(owner)} calls {name}.backward() on its result")
    for owner, callee in direct:
        backpropagated.setdefault(callee, f"{_named(owner)} calls backward() on its result")
    return found, backpropagated


