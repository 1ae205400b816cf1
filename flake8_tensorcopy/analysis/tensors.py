"""What kind of value an expression holds: the evidence every rule needs before it reports.

Precision first: only the sources RULES.md lists ("Knowing what is a tensor") make a tensor;
everything else is unknown (``None``), and unknown is never reported.
"""

from typing import Optional, Tuple, Union

import libcst as cst

from flake8_tensorcopy.analysis.evidence import Evidence, weakest
from flake8_tensorcopy.analysis.facts import PARAMETER, ModuleClass, ModuleInstance, ParametersOf
from flake8_tensorcopy.analysis.rebinding import NOTHING_REBOUND
from flake8_tensorcopy.analysis.scope import (
    INSTANCE,
    LIST,
    MODULE,
    NAMED_TENSORS,
    NDARRAY,
    NONE,
    STATE_DICT,
    TENSOR,
    TENSOR_SEQ,
    Scope,
    bind_target,
    canonical,
    dotted_name,
    is_none,
)
from flake8_tensorcopy.data import (
    ATTRIBUTES_RETURNING_TENSOR,
    FUNCTIONS_RETURNING_TENSOR,
    FUNCTIONS_RETURNING_TENSOR_SEQUENCE,
    LEGACY_CONSTRUCTORS,
    METHODS_RETURNING_TENSOR,
    METHODS_RETURNING_TENSOR_SEQUENCE,
    METHODS_RETURNING_TENSOR_WITHOUT_ARGUMENTS,
)
from flake8_tensorcopy.scan import TENSOR_ONLY_METHODS

# Calling these makes a tensor even though they are classes, not functions.
TENSOR_CLASSES = frozenset({"torch.nn.Parameter", "torch.nn.Buffer"}) | LEGACY_CONSTRUCTORS

# Annotations that say "this is a tensor".
TENSOR_ANNOTATIONS = frozenset({"torch.Tensor", "torch.nn.Parameter", "torch.nn.Buffer"})
NDARRAY_ANNOTATIONS = frozenset({"numpy.ndarray", "numpy.typing.NDArray"})

# nn.Module methods that return the module itself (``model = Net().to(device)``).
MODULE_METHODS_RETURNING_SELF = frozenset(
    {"to", "cuda", "cpu", "eval", "train", "float", "double", "half", "bfloat16", "requires_grad_",
     "to_empty", "share_memory"}
)


# Parameters every built-in layer that has them names so (``layer.weight``), and the buffers
# of the normalisation layers (``bn.running_mean``: tensors that never require grad).
MODULE_PARAMETERS = frozenset({"weight", "bias"})
MODULE_BUFFERS = frozenset({"running_mean", "running_var", "num_batches_tracked"})


def module_attributes(binding) -> Optional[dict]:
    """What the attributes of ``self``, of a parameter annotated with a module class of this
    file, or of an instance of one hold (attribute name -> Binding); None when unknown."""
    if binding.attrs is not None and binding.kind in (INSTANCE, MODULE):
        return binding.attrs
    origin = binding.origin
    return origin.facts.attributes if type(origin) is ModuleInstance else None


def is_module_class(qualname: Optional[str]) -> bool:
    """``torch.nn.Linear``, ``torch.nn.Module``: classes whose instances are modules."""
    if qualname is None or not qualname.startswith("torch.nn.") or qualname in TENSOR_CLASSES:
        return False
    last = qualname.rsplit(".", 1)[-1]
    return last[:1].isupper() and ".functional." not in qualname and ".init." not in qualname


# numpy functions that build an ndarray.
NUMPY_ARRAY_FUNCTIONS = frozenset(
    "numpy." + name
    for name in (
        "array", "asarray", "ascontiguousarray", "zeros", "ones", "empty", "full", "arange",
        "linspace", "zeros_like", "ones_like", "empty_like", "full_like", "concatenate",
        "stack", "vstack", "hstack", "load", "frombuffer", "fromfile", "copy", "eye",
        "random.rand", "random.randn", "random.random", "random.randint", "random.normal",
        "random.uniform",
    )
)
NDARRAY_METHODS = frozenset({"copy", "astype", "reshape", "transpose", "ravel", "flatten",
                             "squeeze", "view", "clip", "round"})

# Keys of an optimizer's state_dict(), whose values are not tensors.
_OPTIMIZER_STATE_KEYS = frozenset({"state", "param_groups"})

_ELEMENTWISE_COMPARISONS = (cst.LessThan, cst.GreaterThan, cst.LessThanEqual,
                            cst.GreaterThanEqual, cst.Equal, cst.NotEqual)

# 0-d results. A reduction over every element (no argument, or only ``dtype=``) returns a 0-d
# tensor, as a loss with its default reduction does; shape-keeping methods and arithmetic of
# 0-d tensors and numbers keep it 0-d. Anything else (an index, a criterion built elsewhere,
# whose ``reduction=`` is not seen here) is of unknown shape.
_SEQUENCE_ANNOTATIONS = frozenset({"List", "list", "Sequence", "Tuple", "tuple", "Iterable", "Iterator"})

IterKind = Union[Optional[str], Tuple["IterKind", ...]]


class TensorInference:
    """Answers ``kind_of(expression)`` against the scope the walk is in.

    ``provenance`` (set by the walk) gives the grad state of a comprehension's items, ``rebound``
    the names whose evidence is weak wherever they are read (``analysis.rebinding``).
    """

    provenance = None
    rebound = NOTHING_REBOUND  # set by the walk: the names other functions rebind

    def __init__(self):
        # attribute name -> the grad state of the graph tensor a class of this file stores in
        # ``self.<name>`` (None where a class also stores a non-tensor there)
        self.graph_attributes = {}

    def stored_graph_attribute(self, node: cst.Attribute, scope: Scope):
        """The grad state ``node`` (``layer.aux_loss``) has because a class of this file stores a
        graph tensor in ``self.aux_loss``, when the receiver is of no known class; else None."""
        if not self.graph_attributes:
            return None
        stored = self.graph_attributes.get(node.attr.value)
        if stored is None:
            return None
        base = node.value
        binding = scope.lookup(base.value) if type(base) is cst.Name else None
        if binding is not None and (binding.kind == INSTANCE or binding.attrs is not None or binding.qualname):
            return None
        kind = binding.kind if binding is not None else self.kind_of(base, scope)
        return stored if kind is None or (kind == MODULE and module_attributes(binding) is None) else None

    def qualname(self, node: cst.BaseExpression, scope: Scope) -> Optional[str]:
        """``torch.tensor`` for ``th.tensor`` / ``T`` / ``torch.tensor`` when imports say so."""
        parts = []
        while type(node) is cst.Attribute:
            parts.append(node.attr.value)
            node = node.value
        if type(node) is not cst.Name:
            return None
        binding = scope.lookup(node.value)
        if binding is None or binding.qualname is None:
            return None
        parts.append(binding.qualname)
        return canonical(".".join(reversed(parts)))

    def annotation_kind(self, annotation: Optional[cst.BaseExpression], scope: Scope) -> Optional[str]:
        """TENSOR for ``torch.Tensor``, ``Tensor``, ``nn.Parameter``, ``Optional[...]`` of those."""
        if annotation is None:
            return None
        node = annotation
        if type(node) is cst.SimpleString:
            try:
                node = cst.parse_expression(node.evaluated_value)
            except (cst.ParserSyntaxError, ValueError, SyntaxError):
                return None
        if type(node) is cst.BinaryOperation and type(node.operator) is cst.BitOr:
            sides = (node.left, node.right)
            kinds = {self.annotation_kind(side, scope) for side in sides if not is_none(side)}
            return _one_array_kind(kinds)
        if type(node) is cst.Subscript:
            wrapper = (self.qualname(node.value, scope) or dotted_name(node.value) or "").rsplit(".", 1)[-1]
            if wrapper in _SEQUENCE_ANNOTATIONS:
                kinds = {
                    self.annotation_kind(element.slice.value, scope)
                    for element in node.slice
                    if type(element.slice) is cst.Index and type(element.slice.value) is not cst.Ellipsis
                }
                return TENSOR_SEQ if kinds == {TENSOR} else None
            if wrapper in ("Optional", "Union"):
                kinds = {
                    self.annotation_kind(element.slice.value, scope)
                    for element in node.slice
                    if type(element.slice) is cst.Index and not is_none(element.slice.value)
                }
                return _one_array_kind(kinds)
            return NDARRAY if wrapper == "NDArray" and self.qualname(node.value, scope) in NDARRAY_ANNOTATIONS else None
        qualname = self.qualname(node, scope)
        if qualname in TENSOR_ANNOTATIONS:
            return TENSOR
        if qualname in NDARRAY_ANNOTATIONS:
            return NDARRAY
        return MODULE if is_module_class(qualname) else None

    def kind_of(self, node: cst.BaseExpression, scope: Scope) -> Optional[str]:
        kind_from = _KIND_BY_TYPE.get(type(node))
        return kind_from(self, node, scope) if kind_from is not None else None

    def _name(self, node: cst.Name, scope: Scope) -> Optional[str]:
        if node.value == "None":
            return NONE
        binding = scope.lookup(node.value)
        if binding is None or binding.kind == INSTANCE:
            return None  # ``self`` is only useful through its attributes, read in _attribute
        return binding.kind

    def _call(self, node: cst.Call, scope: Scope) -> Optional[str]:
        func = node.func
        qualname = self.qualname(func, scope)
        if qualname is not None:
            if qualname in FUNCTIONS_RETURNING_TENSOR or qualname in TENSOR_CLASSES:
                return TENSOR
            if is_module_class(qualname):
                return MODULE
            if qualname in FUNCTIONS_RETURNING_TENSOR_SEQUENCE:
                return TENSOR_SEQ
            if qualname in NUMPY_ARRAY_FUNCTIONS:
                return NDARRAY
            if qualname in ("copy.copy", "copy.deepcopy") and len(node.args) == 1:
                return self.kind_of(node.args[0].value, scope)
            return None
        if type(func) is cst.Name:
            binding = scope.lookup(func.value)
            if binding is not None and type(binding.origin) is ModuleClass:
                return MODULE
            return self._builtin_call(func.value, node, scope)
        if type(func) is not cst.Attribute:
            return None
        method = func.attr.value
        receiver = self.kind_of(func.value, scope)
        if receiver == MODULE and method in MODULE_METHODS_RETURNING_SELF:
            return MODULE
        if method in TENSOR_ONLY_METHODS and receiver != MODULE:
            return TENSOR
        if receiver == TENSOR:
            if method in METHODS_RETURNING_TENSOR:
                return TENSOR
            if method in METHODS_RETURNING_TENSOR_WITHOUT_ARGUMENTS and not node.args:
                return TENSOR
            if method in METHODS_RETURNING_TENSOR_SEQUENCE:
                return TENSOR_SEQ
            if method == "numpy":
                return NDARRAY
        elif receiver == NDARRAY and method in NDARRAY_METHODS:
            return NDARRAY
        elif receiver == STATE_DICT:
            return {"copy": STATE_DICT, "values": TENSOR_SEQ, "items": NAMED_TENSORS}.get(method)
        if method == "state_dict" and not node.args:
            return STATE_DICT
        if method in ("parameters", "buffers"):
            return TENSOR_SEQ
        if method in ("named_parameters", "named_buffers"):
            return NAMED_TENSORS
        return None

    def _builtin_call(self, name: str, node: cst.Call, scope: Scope) -> Optional[str]:
        if scope.lookup(name) is not None or len(node.args) != 1:
            return None
        argument = self.kind_of(node.args[0].value, scope)
        if name in ("list", "tuple", "sorted", "reversed") and argument == TENSOR_SEQ:
            return TENSOR_SEQ
        if name == "dict" and argument in (NAMED_TENSORS, STATE_DICT):
            return STATE_DICT
        if name == "sum" and argument == TENSOR_SEQ:
            return TENSOR
        if name == "abs" and argument == TENSOR:
            return TENSOR
        return None

    def _attribute(self, node: cst.Attribute, scope: Scope) -> Optional[str]:
        attr = node.attr.value
        base = node.value
        if type(base) is cst.Name:
            binding = scope.lookup(base.value)
            if binding is None:
                return None
            attributes = module_attributes(binding)
            if attributes is not None and attr in attributes:
                return attributes[attr].kind
            if binding.kind == INSTANCE:
                return None
            if binding.kind == TENSOR and attr in ATTRIBUTES_RETURNING_TENSOR:
                return TENSOR
            if binding.kind == MODULE and (attr in MODULE_PARAMETERS or attr in MODULE_BUFFERS):
                return TENSOR
            return TENSOR if self.stored_graph_attribute(node, scope) is not None else None
        base_kind = self.kind_of(base, scope)
        if attr in ATTRIBUTES_RETURNING_TENSOR and base_kind == TENSOR:
            return TENSOR
        if base_kind == MODULE and (attr in MODULE_PARAMETERS or attr in MODULE_BUFFERS):
            return TENSOR
        return TENSOR if self.stored_graph_attribute(node, scope) is not None else None

    def _subscript(self, node: cst.Subscript, scope: Scope) -> Optional[str]:
        base = self.kind_of(node.value, scope)
        if base == TENSOR:
            return TENSOR
        if base == NDARRAY:
            return NDARRAY if has_slice(node) else None
        if base == TENSOR_SEQ:
            return TENSOR_SEQ if has_slice(node) else TENSOR
        if base == STATE_DICT and len(node.slice) == 1:
            key = node.slice[0].slice
            if type(key) is cst.Index:
                literal = key.value
                if type(literal) is cst.SimpleString and literal.evaluated_value in _OPTIMIZER_STATE_KEYS:
                    return None
                return TENSOR
        return None

    def _binary(self, node: cst.BinaryOperation, scope: Scope) -> Optional[str]:
        kinds = (self.kind_of(node.left, scope), self.kind_of(node.right, scope))
        if TENSOR in kinds:
            return TENSOR
        if NDARRAY in kinds:
            return NDARRAY
        return None

    def _unary(self, node: cst.UnaryOperation, scope: Scope) -> Optional[str]:
        if type(node.operator) is cst.Not:
            return None
        kind = self.kind_of(node.expression, scope)
        return kind if kind in (TENSOR, NDARRAY) else None

    def _comparison(self, node: cst.Comparison, scope: Scope) -> Optional[str]:
        if len(node.comparisons) != 1 or not isinstance(node.comparisons[0].operator, _ELEMENTWISE_COMPARISONS):
            return None
        kinds = (self.kind_of(node.left, scope), self.kind_of(node.comparisons[0].comparator, scope))
        return TENSOR if TENSOR in kinds else None

    def _if_exp(self, node: cst.IfExp, scope: Scope) -> Optional[str]:
        kinds = {self.kind_of(node.body, scope), self.kind_of(node.orelse, scope)}
        kinds.discard(NONE)
        return kinds.pop() if len(kinds) == 1 else None

    def _sequence(self, node, scope: Scope) -> Optional[str]:
        for element in node.elements:
            if type(element) is not cst.StarredElement and self.kind_of(element.value, scope) == TENSOR:
                return TENSOR_SEQ
        return LIST if type(node) is cst.List else None

    def _comprehension(self, node, scope: Scope) -> Optional[str]:
        inner = self.comprehension_scope(node.for_in, scope)
        return TENSOR_SEQ if self.kind_of(node.elt, inner) == TENSOR else None

    def _named(self, node: cst.NamedExpr, scope: Scope) -> Optional[str]:
        return self.kind_of(node.value, scope)

    def comprehension_scope(self, for_in: cst.CompFor, scope: Scope) -> Scope:
        """A scope binding the targets of every ``for`` clause of a comprehension."""
        inner = Scope(scope, frame=False)
        clause = for_in
        while clause is not None:
            outer = inner if clause is not for_in else scope
            iterated = clause.iter
            grad = self.provenance.item_grad(iterated, outer) if self.provenance is not None else None
            bind_target(clause.target, self.iter_kind(iterated, outer), inner, grad,
                        evidence=self.iter_evidence(iterated, outer))
            clause = clause.inner_for_in
        return inner

    def parameters_owner(self, node: cst.BaseExpression, scope: Scope) -> Optional[str]:
        """``model`` when ``node`` yields ``model``'s parameters: ``model.parameters()``, a list of
        them, or a name or ``self`` attribute bound to one (``self.params = list(model.parameters())``)."""
        owner = called_parameters_owner(node)
        if owner is not None:
            return owner
        binding = None
        if type(node) is cst.Name:
            binding = scope.lookup(node.value)
        elif type(node) is cst.Attribute and type(node.value) is cst.Name:
            base = scope.lookup(node.value.value)
            attributes = module_attributes(base) if base is not None else None
            binding = attributes.get(node.attr.value) if attributes else None
        origin = binding.origin if binding is not None else None
        return origin.owner if type(origin) is ParametersOf else None

    def is_integer(self, node: cst.BaseExpression, scope: Scope, function: Optional[cst.FunctionDef]) -> bool:
        """Whether ``node`` is an int: a literal, or a parameter of ``function`` annotated ``int``
        and not rebound (``def __getitem__(self, idx: int)``). Indexing with ints views."""
        if type(node) is cst.UnaryOperation and type(node.operator) is cst.Minus:
            node = node.expression
        if type(node) is cst.Integer:
            return True
        if type(node) is not cst.Name or function is None:
            return False
        binding = scope.lookup(node.value)
        if binding is None or binding.origin != PARAMETER:
            return False
        params = function.params
        for param in list(params.posonly_params) + list(params.params) + list(params.kwonly_params):
            if param.name.value == node.value:
                annotation = param.annotation.annotation if param.annotation is not None else None
                return type(annotation) is cst.Name and annotation.value == "int"
        return False

    def evidence_of(self, node: cst.BaseExpression, scope: Scope) -> Optional[Evidence]:
        """The evidence for the kind ``kind_of`` gives ``node``: a value derived from others
        (arithmetic, indexing, a method any array or list also has) is only as well known as
        they are; a torch call or a tensor-only method proves its result whatever it was given."""
        evidence_from = _EVIDENCE_BY_TYPE.get(type(node))
        return evidence_from(self, node, scope) if evidence_from is not None else None

    def _weakest_of(self, nodes, kinds, scope: Scope) -> Optional[Evidence]:
        """The weakest evidence among ``nodes`` whose kind is in ``kinds`` (the ones that made it)."""
        return weakest(self.evidence_of(node, scope) for node in nodes if self.kind_of(node, scope) in kinds)

    def _name_evidence(self, node: cst.Name, scope: Scope) -> Optional[Evidence]:
        binding = scope.lookup(node.value)
        if binding is None or binding.evidence is None:
            return None
        owner = scope.owner_of(node.value)
        if not owner.is_class and self.rebound.holds(node.value, module_level=owner.parent is None):
            return weakest((binding.evidence, Evidence.REBOUND))
        return binding.evidence

    def _call_evidence(self, node: cst.Call, scope: Scope) -> Optional[Evidence]:
        if self._call(node, scope) is None:
            return None
        func = node.func
        qualname = self.qualname(func, scope)
        if qualname is not None:
            if qualname in ("copy.copy", "copy.deepcopy"):
                return self.evidence_of(node.args[0].value, scope)
            return Evidence.TORCH_API
        if type(func) is cst.Name:
            binding = scope.lookup(func.value)
            if binding is not None and type(binding.origin) is ModuleClass:
                return Evidence.SUMMARY  # an instance of a module class of this file
            return self.evidence_of(node.args[0].value, scope)  # list(...), sum(...), abs(...)
        method = func.attr.value
        receiver = self.kind_of(func.value, scope)
        if method in TENSOR_ONLY_METHODS and receiver != MODULE:
            return Evidence.TENSOR_METHOD
        if receiver in (TENSOR, NDARRAY, STATE_DICT) or (receiver == MODULE and method in MODULE_METHODS_RETURNING_SELF):
            return self.evidence_of(func.value, scope)  # ``.sum()``: an ndarray has it too
        return Evidence.TORCH_API  # state_dict(), parameters(): nn.Module's own API

    def _attribute_evidence(self, node: cst.Attribute, scope: Scope) -> Optional[Evidence]:
        base = node.value
        if type(base) is cst.Name:
            binding = scope.lookup(base.value)
            attributes = module_attributes(binding) if binding is not None else None
            if attributes is not None and node.attr.value in attributes:
                return attributes[node.attr.value].evidence
            if binding is not None and binding.kind == INSTANCE:
                return None
        if self.stored_graph_attribute(node, scope) is not None:
            return Evidence.SUMMARY
        return self.evidence_of(base, scope) if self._attribute(node, scope) is not None else None

    def _subscript_evidence(self, node: cst.Subscript, scope: Scope) -> Optional[Evidence]:
        return self.evidence_of(node.value, scope) if self._subscript(node, scope) is not None else None

    def _binary_evidence(self, node: cst.BinaryOperation, scope: Scope) -> Optional[Evidence]:
        return self._weakest_of((node.left, node.right), (TENSOR, NDARRAY), scope)

    def _unary_evidence(self, node: cst.UnaryOperation, scope: Scope) -> Optional[Evidence]:
        return self.evidence_of(node.expression, scope) if self._unary(node, scope) is not None else None

    def _comparison_evidence(self, node: cst.Comparison, scope: Scope) -> Optional[Evidence]:
        if self._comparison(node, scope) is None:
            return None
        return self._weakest_of((node.left, node.comparisons[0].comparator), (TENSOR,), scope)

    def _if_exp_evidence(self, node: cst.IfExp, scope: Scope) -> Optional[Evidence]:
        kind = self._if_exp(node, scope)
        return self._weakest_of((node.body, node.orelse), (kind,), scope) if kind is not None else None

    def _sequence_evidence(self, node, scope: Scope) -> Optional[Evidence]:
        """The evidence for every item (a loop, an index or an unpacking may take any): the
        join of the items', weak where one is not known to be a tensor (``(t, extra)``)."""
        if self._sequence(node, scope) != TENSOR_SEQ:
            return None
        return weakest(self._item_evidence(element, scope) for element in node.elements)

    def _item_evidence(self, element: cst.BaseElement, scope: Scope) -> Optional[Evidence]:
        """What an item of a list or tuple literal says of the items it adds (``*rest``: its own)."""
        wanted = TENSOR_SEQ if type(element) is cst.StarredElement else TENSOR
        if self.kind_of(element.value, scope) != wanted:
            return Evidence.SOME_ITEMS
        return self.evidence_of(element.value, scope)

    def _comprehension_evidence(self, node, scope: Scope) -> Optional[Evidence]:
        inner = self.comprehension_scope(node.for_in, scope)
        return self.evidence_of(node.elt, inner) if self.kind_of(node.elt, inner) == TENSOR else None

    def _named_evidence(self, node: cst.NamedExpr, scope: Scope) -> Optional[Evidence]:
        return self.evidence_of(node.value, scope)

    def iter_kind(self, node: cst.BaseExpression, scope: Scope) -> IterKind:
        """Kind of the items a ``for`` over ``node`` yields (a tuple for pairs)."""
        kind = self.kind_of(node, scope)
        if kind in (TENSOR, TENSOR_SEQ):
            return TENSOR
        if kind == NAMED_TENSORS:
            return (None, TENSOR)
        if type(node) is cst.Call and type(node.func) is cst.Name and scope.lookup(node.func.value) is None:
            arguments = [arg.value for arg in node.args if not arg.keyword and not arg.star]
            if node.func.value == "enumerate" and arguments:
                return (None, self.iter_kind(arguments[0], scope))
            if node.func.value == "zip":
                return tuple(self.iter_kind(argument, scope) for argument in arguments)
        return None

    def iter_evidence(self, node: cst.BaseExpression, scope: Scope):
        """The evidence for the items ``iter_kind`` gives, shaped as it is: each position of a
        ``zip`` or ``enumerate`` pair has its own iterable's."""
        if type(node) is cst.Call and type(node.func) is cst.Name and scope.lookup(node.func.value) is None:
            arguments = [arg.value for arg in node.args if not arg.keyword and not arg.star]
            if node.func.value == "enumerate" and arguments:
                return (None, self.iter_evidence(arguments[0], scope))
            if node.func.value == "zip":
                return tuple(self.iter_evidence(argument, scope) for argument in arguments)
        return self.evidence_of(node, scope)


def called_parameters_owner(node: cst.BaseExpression) -> Optional[str]:
    """``model`` for ``model.parameters()``, ``model.named_parameters()`` and a call wrapping one
    (``list(model.parameters())``)."""
    if type(node) is cst.Call and type(node.func) is cst.Name and node.args:
        node = node.args[0].value
    if (
        type(node) is cst.Call
        and type(node.func) is cst.Attribute
        and node.func.attr.value in ("parameters", "named_parameters")
    ):
        return dotted_name(node.func.value)
    return None


def _one_array_kind(kinds: set) -> Optional[str]:
    """The kind a union annotation gives: TENSOR or NDARRAY when every member says the same."""
    return kinds.pop() if len(kinds) == 1 and kinds <= {TENSOR, NDARRAY} else None


def has_slice(node: cst.Subscript) -> bool:
    return any(type(element.slice) is cst.Slice for element in node.slice)


_KIND_BY_TYPE = {
    cst.Name: TensorInference._name,
    cst.Call: TensorInference._call,
    cst.Attribute: TensorInference._attribute,
    cst.Subscript: TensorInference._subscript,
    cst.BinaryOperation: TensorInference._binary,
    cst.UnaryOperation: TensorInference._unary,
    cst.Comparison: TensorInference._comparison,
    cst.IfExp: TensorInference._if_exp,
    cst.List: TensorInference._sequence,
    cst.Tuple: TensorInference._sequence,
    cst.ListComp: TensorInference._comprehension,
    cst.GeneratorExp: TensorInference._comprehension,
    cst.NamedExpr: TensorInference._named,
}


_EVIDENCE_BY_TYPE = {
    cst.Name: TensorInference._name_evidence,
    cst.Call: TensorInference._call_evidence,
    cst.Attribute: TensorInference._attribute_evidence,
    cst.Subscript: TensorInference._subscript_evidence,
    cst.BinaryOperation: TensorInference._binary_evidence,
    cst.UnaryOperation: TensorInference._unary_evidence,
    cst.Comparison: TensorInference._comparison_evidence,
    cst.IfExp: TensorInference._if_exp_evidence,
    cst.List: TensorInference._sequence_evidence,
    cst.Tuple: TensorInference._sequence_evidence,
    cst.ListComp: TensorInference._comprehension_evidence,
    cst.GeneratorExp: TensorInference._comprehension_evidence,
    cst.NamedExpr: TensorInference._named_evidence,
}
