"""Typed facts the flow pass records and the rules read, and how they meet where paths join.

An *origin* says how the value a name holds was made, when that matters to a rule or a later
fact: a parameter of the function (the caller holds it), a function or module class of this
file, an instance of one, a blank or ``*_like`` buffer, a torch.nn layer, an optimizer. An
*alias fact* says that one key shares storage with another since a given node. Keys are the
dotted paths of names and attributes (``w``, ``self.w``, ``model.fc.weight``) and the items of
containers (``backup[*]``).
"""

import enum
import re
from dataclasses import dataclass, field, replace
from typing import Optional, Tuple

import libcst as cst


@dataclass(eq=False)
class ClassFacts:
    """What the walk learns about a module class of this file as it walks its methods."""

    methods: dict = field(default_factory=dict)  # name -> FunctionDef of its instance methods
    # attribute -> StateSnapshot for each ``self.best = self.model.state_dict()`` made in any
    # method: a snapshot kept across calls
    state_snapshots: dict = field(default_factory=dict)
    # attribute -> the first node, in a method other than ``__init__``, writing ``self.attr``
    # (a tensor or array) in place: what aliases of it stored on self will follow
    written_attributes: dict = field(default_factory=dict)
    # containers on self whose items a method writes in place (``self.refs[k].copy_(...)``):
    # what is stored in them is meant to be written through
    written_items: set = field(default_factory=set)
    attributes: Optional[dict] = None  # what ``self.x`` holds across the methods (name -> Binding)


@dataclass(frozen=True)
class StateSnapshot:
    """``self.best = self.model.state_dict()`` in a method: the expression ``value``, the model's
    path under the receiver (``.model``) and the operation as the code spells it."""

    value: cst.BaseExpression
    model_path: str
    op: str


@dataclass(frozen=True)
class Parameter:
    """A parameter of the function being walked (or its receiver): the caller still holds it."""


PARAMETER = Parameter()


@dataclass(frozen=True)
class Function:
    """A function defined in this file (its summary is read at call sites)."""

    node: cst.FunctionDef


@dataclass(frozen=True)
class ModuleClass:
    """A subclass of ``nn.Module`` defined in this file."""

    facts: ClassFacts


@dataclass(frozen=True)
class PlainClass:
    """A class defined in this file that is not an ``nn.Module`` (its methods are summarised at
    the calls on a parameter annotated with it)."""

    facts: ClassFacts


@dataclass(frozen=True)
class ModuleInstance:
    """An instance of a module class of this file; ``forward_ran``: it was called on this path."""

    facts: ClassFacts
    forward_ran: bool = False


@dataclass(frozen=True)
class LikeBuffer:
    """``torch.empty_like(source)`` (and ``zeros_like``/``ones_like``) made at small statement ``statement``."""

    source: cst.BaseExpression
    source_binding: object  # what ``source`` named then (a scope Binding), None if not a name
    statement: int


@dataclass(frozen=True)
class BlankBuffer:
    """A fresh allocation of constant or uninitialised content (``torch.zeros``): made to be filled."""


BLANK = BlankBuffer()


@dataclass(frozen=True)
class Layer:
    """An instance of the torch.nn class ``qualname``."""

    qualname: str


@dataclass(frozen=True)
class Optimizer:
    """A torch optimizer built from the parameters of ``owner`` (a key): its ``step()`` writes them.

    On an attribute of ``self`` the owner is a path under the receiver (``.model``)."""

    owner: str


@dataclass(frozen=True)
class ParameterOf:
    """A loop variable over ``owner.parameters()`` (or ``named_parameters()``): each value is
    one of the model's parameters, whatever the loop variable is called later."""

    owner: str

    @property
    def key(self) -> str:
        return element_key(self.owner + PARAMETERS)


@dataclass(frozen=True)
class HeldBy:
    """An item read out of something that outlives the function (``state = self.state[p]``,
    ``buf = state["momentum"]``): its ``holder`` still holds it when the function returns.
    ``key``: the memory the name is, where a same-module callee handed back an array kept
    there as is (``obs = env.reset()`` returning ``self._obs``: the key ``env._obs``)."""

    holder: "Holder"
    key: Optional[str] = None


@dataclass(frozen=True)
class ParametersOf:
    """A list of ``owner``'s parameters (``list(model.parameters())``): each item is one of them,
    whatever name or attribute the list is kept under."""

    owner: str

    @property
    def key(self) -> str:
        return element_key(self.owner + PARAMETERS)


PARAMETERS = ".parameters()"


def is_parameter_item(key: str) -> bool:
    """Whether ``key`` is a parameter of a model (``model.parameters()[*]``)."""
    return key.endswith(element_key(PARAMETERS))


def merge_origins(first, second):
    """The origin that holds after two paths meet: the same one, or none (an instance whose
    forward ran on one path may have run)."""
    if first == second:
        return first
    if type(first) is type(second) is ModuleInstance and first.facts is second.facts:
        return ModuleInstance(first.facts, first.forward_ran or second.forward_ran)
    return None


Write = Tuple[str, cst.CSTNode]  # ("alias" or "source", the node that wrote that side in place)


class Made(enum.Enum):
    """The operation that makes one value share storage with another."""

    NUMPY_VIEW = "an ndarray over a tensor's memory"  # ``t.numpy()``, ``np.asarray(t)``
    FROM_NUMPY = "a tensor over an ndarray's memory"  # ``torch.from_numpy(a)``, ``torch.as_tensor(a)``
    DETACH = "detached"  # ``t.detach()``, ``t.data``
    VIEW = "a view of the whole"  # ``t.view(-1)``, ``t.T``
    PARTIAL_VIEW = "a view of a part"  # ``t[0]``, ``t.narrow(...)``, the items of ``t.chunk(2)``
    MOVE = "a move that may do nothing"  # ``t.cpu()``, ``t.float()``, ``torch.as_tensor(t)``
    TRANSFER = "an asynchronous move"  # ``t.cuda(non_blocking=True)``: a move that may do nothing, too
    ASSIGNMENT = "the same object"  # ``y = x``, a function returning its argument
    SHALLOW_COPY = "a shallow copy"  # ``copy.copy(t)``
    STATE_DICT = "the live parameters"  # ``model.state_dict()`` and dict copies of it


Operations = Tuple[Made, ...]  # the operations of a chain, outermost first


def result_is_array(operations: Operations) -> bool:
    """Whether a chain ends on the numpy side (``t.detach().numpy()``, not ``torch.from_numpy(t.numpy())``)."""
    return Made.NUMPY_VIEW in operations and Made.FROM_NUMPY not in operations


@dataclass(frozen=True)
class Source:
    """What the function knows about the value an alias was made of, when the alias is made.

    ``local``: a name of this function that is not a parameter (made here). ``blank``: a blank
    or ``*_like`` allocation (``torch.zeros``), or an attribute this function just set to one.
    """

    local: bool = False
    blank: bool = False


UNKNOWN_SOURCE = Source()


@dataclass(frozen=True, eq=False)
class AliasFact:
    """``alias_key`` shares storage with ``source_key`` since ``node``, made by the chain of
    ``operations`` (outermost first; ``op`` spells the outermost as the code does).

    ``writes``: the in-place writes seen so far, in order. ``source``: what was known of the
    source then. ``escaped``: stored where it outlives the call.
    """

    operations: Operations
    alias_key: str
    source_key: str
    op: str
    node: cst.BaseExpression
    source: Source = UNKNOWN_SOURCE
    escaped: bool = False
    writes: Tuple[Write, ...] = ()
    source_name: str = ""  # how the code names the source, where its key differs (``p``)

    @property
    def made(self) -> Made:
        """The outermost operation (``VIEW`` for ``w.detach().view(-1)``)."""
        return self.operations[0]

    def shown(self, key: str) -> str:
        """``key`` as a message names it."""
        return self.source_name if key == self.source_key and self.source_name else key

    def with_write(self, side: str, node: cst.CSTNode) -> "AliasFact":
        return replace(self, writes=self.writes + ((side, node),))

    def with_escape(self) -> "AliasFact":
        return replace(self, escaped=True)

    def first_write(self, side: str) -> Optional[cst.CSTNode]:
        for written_side, node in self.writes:
            if written_side == side:
                return node
        return None


def element_key(container: str, index: Optional[str] = None) -> str:
    """The key of an item of a container: ``batch['img']`` or ``outs[0]`` for a constant index,
    ``backup[*]`` (any item) for ``backup[name]``, an appended item, an unknown index.

    Keys are one space: a name (``w``), an attribute path (``self.w``), an item (``backup[*]``,
    ``batch['img']``); a key's parts follow ``.`` or ``[``. ``[*]`` may be any item."""
    return f"{container}[{'*' if index is None else index}]"


_ANY_INDEX = re.compile(r"\[[^\]]*\]")


def any_item(key: str) -> str:
    """``key`` with every index made ``*``: what a key holding ``[*]`` may name."""
    return _ANY_INDEX.sub("[*]", key)


def part_of(key: str, whole: str) -> bool:
    """Whether ``key`` names a part of ``whole`` (``self.w`` of ``self``, ``backup[*]`` of ``backup``)."""
    return key.startswith(whole) and key[len(whole):len(whole) + 1] in (".", "[")


class Holder(enum.Enum):
    """Who still holds one side of an alias when the function returns (without a later read)."""

    PARAMETER = "a parameter"
    PARAMETER_ATTRIBUTE = "an attribute of a parameter"
    RECEIVER_ATTRIBUTE = "an attribute"  # ``self.x`` of a method, whatever the receiver's name
    GLOBAL = "a global"
    STORED = "stored away"  # into a container, an attribute, yielded
    LOCAL = "a local name"  # only a name of the function (which may say it keeps an earlier value)
    LOADED_BACK = "loaded back into its source"  # ``self.model.load_state_dict(self.best)``


@dataclass(frozen=True)
class SharingObserved:
    """The event the alias rules subscribe to: one side of ``fact`` was written in place at
    ``write`` and the other side, ``observed_key``, is observed: read at ``read`` (a node after
    the write in program order, or before it in a later loop iteration), or held by ``holder``
    (``Holder.LOCAL``: by nothing but its own name)."""

    fact: AliasFact
    write: cst.CSTNode
    observed_key: str
    read: Optional[cst.CSTNode] = None
    holder: Optional[Holder] = None
    context: Optional["WriteContext"] = None

    @property
    def written_key(self) -> str:
        fact = self.fact
        return fact.source_key if self.observed_key == fact.alias_key else fact.alias_key


@dataclass(frozen=True)
class WriteContext:
    """What the function around a write says about it, for the rules to weigh.

    ``returned``: the observing read is part of a return value. ``source_written_directly``:
    the source's root was also written in place through its own name in this function.
    ``source_returned``: the function ends by returning the source's root. ``on_purpose``: its
    name or a parameter says it writes its arguments (``normalize_``, ``inplace=``).
    ``undone``: the written element is later set back to a value read from it (a perturbation
    that the function restores, as finite differences do). ``other_call``: the alias is kept on
    the receiver and the write happens in another call (a method of the class, a training step).
    ``container_written``: it is kept in a container on the receiver whose items a method of the
    class writes in place.
    """

    returned: bool = False
    source_written_directly: bool = False
    source_returned: bool = False
    on_purpose: bool = False
    undone: bool = False
    other_call: bool = False
    container_written: bool = False


NO_CONTEXT = WriteContext()


@dataclass(frozen=True)
class ReturnedAlias:
    """A function returns memory of its parameter ``parameter`` (``path``: an attribute under it,
    ``""`` for the parameter itself), made by ``operations``/``op`` (``op`` None: returned as is)."""

    parameter: int
    path: str
    operations: Operations
    op: Optional[str]


@dataclass(frozen=True)
class FunctionSummary:
    """What a function of this module does to its parameters, as its call sites need it."""

    returned_aliases: Tuple[ReturnedAlias, ...] = ()
    written_parameters: Tuple[int, ...] = ()
    # (parameter index, attribute path) written in place: ``self._obs[i] = 0`` is (0, "_obs")
    written_attributes: Tuple[Tuple[int, str], ...] = ()


@dataclass(eq=False)
class BackwardCalls:
    """What a function (or the module) runs backward through, found in one walk of the module.

    ``receivers``: names ``x`` of its own ``x.backward()`` calls. ``reached``: names read in the
    receivers and arguments of the ``.backward()`` calls in it or in functions nested in it.
    ``function_calls``: calls there that may be ``torch.autograd.grad/backward``.
    """

    receivers: set = field(default_factory=set)
    reached: set = field(default_factory=set)
    function_calls: list = field(default_factory=list)


NO_BACKWARD = BackwardCalls()


def merge_alias_facts(*tables) -> dict:
    """Alias key -> facts after paths meet: a fact holds if it may hold on some path."""
    merged: dict = {}
    for table in tables:
        for key, facts in table.items():
            known = merged.get(key, ())
            merged[key] = known + tuple(fact for fact in facts if fact not in known)
    return merged
