"""Typed facts the flow pass records and the rules read, and how they meet where paths join.

An *origin* says how the value a name holds was made, when that matters to a rule or a later
fact: a parameter of the function (the caller holds it), a function or module class of this
file, an instance of one, a blank or ``*_like`` buffer, a torch.nn layer, an optimizer. An
*alias fact* says that one key shares storage with another since a given node. Keys are the
dotted paths of names and attributes (``w``, ``self.w``, ``model.fc.weight``).
"""

import enum
from dataclasses import dataclass, replace
from typing import Optional, Tuple

import libcst as cst


@dataclass(eq=False)
class ClassFacts:
    """What the walk learns about a module class of this file as it walks its methods."""

    stores_graph_tensor: bool = False  # a method stores a grad-requiring non-leaf on self
    attributes: Optional[dict] = None  # what ``self.x`` holds across the methods (name -> Binding)


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
    """A torch optimizer built from the parameters of ``owner`` (a key): its ``step()`` writes them."""

    owner: str


def merge_origins(first, second):
    """The origin that holds after two paths meet: the same one, or none (an instance whose
    forward ran on one path may have run)."""
    if first == second:
        return first
    if type(first) is type(second) is ModuleInstance and first.facts is second.facts:
        return ModuleInstance(first.facts, first.forward_ran or second.forward_ran)
    return None


Write = Tuple[str, cst.CSTNode]  # ("alias" or "source", the node that wrote that side in place)


@dataclass(frozen=True, eq=False)
class AliasFact:
    """``alias_key`` shares storage with ``source_key`` since ``node`` (made by ``op``, reported as ``code``).

    ``writes``: the in-place writes seen so far, in order. ``fills_source``: writes through the
    alias fill a buffer of this function on purpose (a blank allocation, or a local viewed), so
    they do not make the source's reads findings. ``escaped``: stored where it outlives the call.
    """

    code: str
    alias_key: str
    source_key: str
    op: str
    node: cst.BaseExpression
    fills_source: bool
    escaped: bool = False
    writes: Tuple[Write, ...] = ()

    def with_write(self, side: str, node: cst.CSTNode) -> "AliasFact":
        return replace(self, writes=self.writes + ((side, node),))

    def with_escape(self) -> "AliasFact":
        return replace(self, escaped=True)

    def first_write(self, side: str) -> Optional[cst.CSTNode]:
        for written_side, node in self.writes:
            if written_side == side:
                return node
        return None


class Holder(enum.Enum):
    """Who still holds one side of an alias when the function returns (without a later read)."""

    PARAMETER = "a parameter"
    PARAMETER_ATTRIBUTE = "an attribute of a parameter"
    RECEIVER_ATTRIBUTE = "an attribute"  # ``self.x`` of a method, whatever the receiver's name
    GLOBAL = "a global"
    STORED = "stored away"  # into a container, an attribute, yielded
    SNAPSHOT_NAME = "its name says it keeps an earlier value"


@dataclass(frozen=True)
class SharingObserved:
    """The event the alias rules subscribe to: one side of ``fact`` was written in place at
    ``write`` and the other side, ``observed_key``, is observed: read at ``read`` (a node after
    the write in program order, or before it in a later loop iteration), or held by ``holder``."""

    fact: AliasFact
    write: cst.CSTNode
    observed_key: str
    read: Optional[cst.CSTNode] = None
    holder: Optional[Holder] = None

    @property
    def written_key(self) -> str:
        fact = self.fact
        return fact.source_key if self.observed_key == fact.alias_key else fact.alias_key


def merge_alias_facts(*tables) -> dict:
    """Alias key -> facts after paths meet: a fact holds if it may hold on some path."""
    merged: dict = {}
    for table in tables:
        for key, facts in table.items():
            known = merged.get(key, ())
            merged[key] = known + tuple(fact for fact in facts if fact not in known)
    return merged
