"""Scopes, bindings and import resolution, tracked inside our own walk.

LibCST's QualifiedNameProvider and ScopeProvider would give the same answers at ~10x the cost
of the parse (that cost is what makes TorchFix slow), so a name's meaning is recorded here as
the walk meets imports, assignments and parameters.
"""

import enum
from dataclasses import dataclass, field, replace
from typing import Dict, Iterator, Optional, Tuple

import libcst as cst

from flake8_tensorcopy.analysis.evidence import Evidence, weakest
from flake8_tensorcopy.analysis.facts import merge_alias_facts, merge_origins, part_of

# What a name may hold. ``None`` means unknown, which is never evidence of anything.
TENSOR = "tensor"
NDARRAY = "ndarray"
TENSOR_SEQ = "tensor_seq"  # a list/tuple/iterable whose items are tensors
NAMED_TENSORS = "named_tensors"  # iterable of (name, tensor) pairs: named_parameters(), sd.items()
STATE_DICT = "state_dict"  # a mapping of names to tensors
LIST = "list"  # a Python list of unknown items (it may collect tensors later)
NONE = "none"  # the literal None (an Optional tensor is still a tensor)
INSTANCE = "instance"  # ``self`` in a method: its attributes have kinds
MODULE = "module"  # an nn.Module instance: calling it runs forward



class Requires(enum.Enum):
    """May a value require grad? Unknown is never evidence that it does, nor that it does not."""

    YES = "may require grad"
    NO = "cannot require grad"
    UNKNOWN = "unknown"


@dataclass(frozen=True)
class Grad:
    """The grad state of a value: may it require grad, is it a leaf (None: either, or unknown),
    did it call ``retain_grad()``, and why we think so (``evidence``, worded for messages:
    "'x' {requires.value}: {evidence}"). Equality ignores the evidence."""

    requires: Requires
    leaf: Optional[bool] = None
    retained: bool = False
    evidence: str = field(default="", compare=False)

    def __bool__(self) -> bool:
        """True where the value may require grad: the question most callers ask."""
        return self.requires is Requires.YES

    @property
    def cannot_require(self) -> bool:
        return self.requires is Requires.NO

    @property
    def graph_non_leaf(self) -> bool:
        """May require grad and may be a non-leaf (a graph output): no ``.grad``, no deepcopy."""
        return self.requires is Requires.YES and self.leaf is not True

    def because(self, evidence: str) -> "Grad":
        return replace(self, evidence=evidence)


UNKNOWN_GRAD = Grad(Requires.UNKNOWN)
LEAF = Grad(Requires.YES, leaf=True, evidence="a parameter")  # .grad is populated by backward()
NON_LEAF = Grad(Requires.YES, leaf=False, evidence="it was computed from tensors that require grad")
RETAINED = Grad(Requires.YES, leaf=False, retained=True, evidence="retain_grad() was called")
MIXED = Grad(Requires.YES, evidence="a leaf on one path, computed on another")
NO_GRAD = Grad(Requires.NO, leaf=True, evidence="made without requires_grad")  # any such value is a leaf

# Kinds that may meet at a merge point and still say something: None and a tensor give an
# Optional tensor, an empty list and a list that collected tensors give a list of tensors.
_MERGES = {
    frozenset((NONE, TENSOR)): TENSOR,
    frozenset((NONE, NDARRAY)): NDARRAY,
    frozenset((LIST, TENSOR_SEQ)): TENSOR_SEQ,
    frozenset((NONE, TENSOR_SEQ)): TENSOR_SEQ,
}

# Spellings that name the same torch object as the canonical one in the tables.
_CANONICAL = {
    "torch.nn.parameter.Parameter": "torch.nn.Parameter",
    "torch.nn.parameter.Buffer": "torch.nn.Buffer",
    "torch._tensor.Tensor": "torch.Tensor",
}


class Binding:
    """What one name holds at one point of the walk.

    ``qualname`` is set for imports (``th`` -> ``torch``), ``kind`` for values, ``origin`` for
    values made from another value by a rule-relevant operation, ``attrs`` (attribute name ->
    Binding) for ``self``, ``grad`` for the value's autograd provenance, ``evidence`` for where
    its ``kind`` comes from (an ``Evidence``; None when nothing says).
    """

    __slots__ = ("kind", "qualname", "origin", "attrs", "grad", "evidence")

    def __init__(self, kind=None, qualname=None, origin=None, attrs=None, grad=None,
                 evidence: Optional[Evidence] = None):
        self.kind = kind
        self.qualname = qualname
        self.origin = origin
        self.attrs = attrs
        self.grad = grad if grad is not None else UNKNOWN_GRAD
        self.evidence = evidence if kind is not None else None

    def with_evidence(self, evidence: Optional[Evidence]) -> "Binding":
        """The same value, known from ``evidence`` (a use or an ``isinstance`` test proved it)."""
        return Binding(self.kind, self.qualname, self.origin, self.attrs, self.grad, evidence)

    def same_meaning(self, other: "Binding") -> bool:
        return (
            self.kind == other.kind
            and self.qualname == other.qualname
            and self.origin is other.origin
            and self.attrs is other.attrs
            and self.grad == other.grad
            and self.evidence is other.evidence
        )


UNKNOWN = Binding()


def merge_grads(first: Optional[Grad], second: Optional[Grad]) -> Grad:
    """The grad state after two paths meet: it may require grad if it may on either path (and
    is then a leaf only if it is one on every path where it may), cannot only if it cannot on both."""
    first = first if first is not None else UNKNOWN_GRAD
    second = second if second is not None else UNKNOWN_GRAD
    if first == second:
        return first
    if not first and second:
        first, second = second, first  # the evidence of the path that may require grad
    if first:
        leaf = first.leaf if second.requires is not Requires.YES or first.leaf == second.leaf else None
        return Grad(Requires.YES, leaf, first.retained and second.retained, first.evidence)
    return UNKNOWN_GRAD  # NO on one path, unknown on the other


def merge_bindings(first: Binding, second: Binding) -> Binding:
    """The binding of a name after two control-flow paths meet (precision first)."""
    if first is second or first.same_meaning(second):
        return first
    grad = merge_grads(first.grad, second.grad)
    if first.qualname is None and second.qualname is None:
        # None and an empty list say nothing about tensors: the other path's evidence holds.
        evidence = weakest(binding.evidence for binding in (first, second) if binding.kind not in (NONE, LIST))
        merged = _MERGES.get(frozenset((first.kind, second.kind)))
        if merged is not None:
            return Binding(merged, grad=grad, evidence=evidence)
        if first.kind == second.kind and first.kind not in (None, INSTANCE):
            origin = merge_origins(first.origin, second.origin)
            return Binding(first.kind, grad=grad, origin=origin, evidence=evidence)
    return Binding(grad=grad) if grad.requires is not Requires.UNKNOWN else UNKNOWN


class Scope:
    """One Python scope: module, class body, function, lambda or comprehension.

    Class scopes are skipped when nested functions look names up, as in Python. A *frame*
    (module, class body or function) also holds the alias facts of its names (see
    ``analysis.aliases``); lambdas and comprehensions share their enclosing frame's.
    """

    __slots__ = ("names", "aliases", "parent", "is_class", "deferred", "frame", "writes_params_on_purpose",
                 "written_directly", "receiver", "blank_attributes")

    def __init__(self, parent: Optional["Scope"] = None, is_class: bool = False, frame: bool = True):
        self.names: Dict[str, Binding] = {}
        self.aliases: Dict[str, tuple] = {}  # alias key -> the AliasFacts it may hold
        self.parent = parent
        self.is_class = is_class
        self.deferred: list = []  # function bodies to walk once this scope's body is done
        self.frame: "Scope" = self if frame or parent is None else parent.frame
        self.writes_params_on_purpose = False  # a function named ``fill_`` writes its inputs
        self.written_directly: set = set()  # names written in place not through an alias
        self.receiver: Optional[str] = None  # a method's first parameter (``self``, ``cls``, ``me``)
        self.blank_attributes: set = set()  # attribute paths this frame last set to a blank allocation

    def lookup(self, name: str) -> Optional[Binding]:
        binding = self.names.get(name)
        if binding is not None:
            return binding
        scope = self.parent
        while scope is not None:
            if not scope.is_class:
                binding = scope.names.get(name)
                if binding is not None:
                    return binding
            scope = scope.parent
        return None

    def owner_of(self, name: str) -> Optional["Scope"]:
        """The scope whose table holds ``name`` as seen from here (for in-place updates)."""
        if name in self.names:
            return self
        scope = self.parent
        while scope is not None:
            if not scope.is_class and name in scope.names:
                return scope
            scope = scope.parent
        return None

    def bind(self, name: str, binding: Binding) -> None:
        """Rebind ``name``: what it aliased, and what aliased it, no longer holds."""
        self.names[name] = binding
        if self.aliases:
            self.forget(name)

    def forget(self, key: str) -> None:
        """Drop alias facts whose alias or source is ``key`` or lives under it (``key.x``, ``key[*]``)."""
        for alias_key in list(self.aliases):
            if alias_key == key or part_of(alias_key, key):
                del self.aliases[alias_key]
                continue
            facts = self.aliases[alias_key]
            kept = tuple(fact for fact in facts if fact.source_key != key and not part_of(fact.source_key, key))
            if len(kept) != len(facts):
                if kept:
                    self.aliases[alias_key] = kept
                else:
                    del self.aliases[alias_key]

    def snapshot(self) -> tuple:
        return dict(self.names), dict(self.aliases)

    def restore(self, state: tuple) -> None:
        self.names = dict(state[0])
        self.aliases = dict(state[1])

    def merge_from(self, *states: tuple) -> None:
        """Set this scope to the merge of branch states: a fact holds if it may hold."""
        merged: Dict[str, Binding] = {}
        for key in dict.fromkeys(key for state in states for key in state[0]):  # a stable order
            present = [state[0][key] for state in states if key in state[0]]
            binding = present[0]
            for other in present[1:]:
                binding = merge_bindings(binding, other)
            merged[key] = binding
        self.names = merged
        self.aliases = merge_alias_facts(*(state[1] for state in states))


def dotted_name(node: cst.BaseExpression) -> Optional[str]:
    """``a.b.c`` for a Name/Attribute chain, else None."""
    parts = []
    while type(node) is cst.Attribute:
        parts.append(node.attr.value)
        node = node.value
    if type(node) is not cst.Name:
        return None
    parts.append(node.value)
    return ".".join(reversed(parts))


def is_none(node: cst.BaseExpression) -> bool:
    return type(node) is cst.Name and node.value == "None"


def canonical(qualname: str) -> str:
    return _CANONICAL.get(qualname, qualname)


def import_bindings(node) -> Iterator[Tuple[str, Optional[str]]]:
    """(local name, qualified name or None) for each name an import statement binds.

    Relative imports bind names we cannot resolve; they still shadow outer ones.
    """
    if type(node) is cst.Import:
        for alias in node.names:
            full = dotted_name(alias.name)
            if alias.asname is not None:
                yield alias.asname.name.value, full
            else:
                head = full.split(".", 1)[0]
                yield head, head
        return
    if isinstance(node.names, cst.ImportStar):
        return
    module = dotted_name(node.module) if node.module is not None else None
    absolute = not node.relative and module is not None
    for alias in node.names:
        name = alias.name.value
        local = alias.asname.name.value if alias.asname is not None else name
        yield local, canonical(module + "." + name) if absolute else None


def bind_target(target: cst.BaseExpression, kind, scope: Scope, grad: Optional[str] = None,
                evidence=None) -> None:
    """Bind the names of an assignment or loop target; ``kind`` may be a tuple for pairs.

    ``grad`` is the provenance of every tensor the target receives (an unpacked output),
    ``evidence`` where the kinds come from (the unpacked or iterated value's), a tuple shaped
    as ``kind`` where each position has its own (``a, b = t, extra``, ``zip(xs, ys)``).
    """
    target_type = type(target)
    if target_type is cst.Name:
        kind = kind if isinstance(kind, str) else None
        evidence = evidence if isinstance(evidence, Evidence) else None
        scope.bind(target.value, Binding(kind, grad=grad if kind in (TENSOR, None) else None, evidence=evidence))
    elif target_type in (cst.Tuple, cst.List):
        elements = target.elements
        if isinstance(kind, tuple) and len(kind) == len(elements):
            item_kinds = kind
        else:
            item = TENSOR if kind in (TENSOR, TENSOR_SEQ) else None
            item_kinds = (item,) * len(elements)
        shaped = isinstance(evidence, tuple) and len(evidence) == len(elements)
        item_evidence = evidence if shaped else (evidence,) * len(elements)
        for element, item_kind, each in zip(elements, item_kinds, item_evidence):
            if type(element) is cst.StarredElement:
                bind_target(element.value, TENSOR_SEQ if item_kind == TENSOR else None, scope, evidence=each)
            else:
                bind_target(element.value, item_kind, scope, grad, each)
    elif target_type is cst.StarredElement:
        bind_target(target.value, None, scope)
