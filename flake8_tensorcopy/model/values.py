"""Abstract values: what one place may hold at one point, as one small immutable tuple.

A value is a product of components, each joined on its own:

- ``kinds``: what it may be ("tensor", "ndarray", "module", "optimizer", "number", "int",
  "list", "tuple", "dict", "function", "class", "object:<Class>", "none", "str", "pymodule",
  "?" for unknown); a join is the union;
- ``grad``: it may require grad; ``graph``: it may be a non-leaf of the autograd graph (made by
  an operation on grad tensors): a leaf is a value with ``grad`` and no ``graph``;
- ``storages``: the storage ids it may share (aliasing is two places holding one id); an id is
  the allocation site ``(line, column)`` or a parameter ``("param", i, function)``;
- ``device``: the devices it may live on (empty: unknown); ``pending``: the asynchronous copies
  that produce it (the state says which are still in flight); ``fresh``: no one else holds it;
- ``why``: evidence per component, ``(component, Evidence)`` pairs, kept only where every path
  has some, the weakest;
- symbolic parts, used inside summaries: ``kind_from`` / ``grad_from`` (the parameters
  ``(function, i)`` whose kind / grad it inherits) and ``called`` (those called to make it);
- ``items``: a container's items by constant key (``"'a'"``, ``"0"``) and ``"*"`` (any other);
- ``qual``: what a name refers to (``"torch.nn"``, ``"copy.deepcopy"``, ``"local:f"``);
- ``facts``: what narrowing proved (``"!=:dtype"``: its dtype differs from ``dtype``);
- ``pinned``: it is a host tensor in page-locked memory on every path (``.pin_memory()``, a
  ``pin_memory=True`` allocation, a view of one): only there do copies run asynchronously;
- ``made``: the alias-making operations (``detach()``, a view, ``numpy()``, ``y = x``...) that
  handed it its storages, as ``(line, column, operation)`` ids: places holding one storage with
  and without an id are the two sides of that alias (TEN2xx).

A state is a dict from place to value plus three sets: ``IN_FLIGHT`` (copies not yet synced; in
a function, ``ENTRY`` stands for those in flight when it was called), ``SAVED`` (storages autograd
keeps for backward; a backward frees them) and ``NO_GRAD`` (the ``torch.no_grad()`` contexts that
may be in effect: operations there record nothing and make no graph), ``INFERENCE`` (a path
taken only where no backward follows: the module's eval branch, ``if not self.training:``, or
``if not torch.is_grad_enabled():``; what it computes is saved for no backward; joined by
intersection, unlike the other sets), ``FORWARDED`` (the
storages of the modules whose forward may have run: an object, however it is reached, a name, an
attribute, an item of a list or dict, a loop's alias), ``HOOKED`` (the forward hooks the
function registered, run at its later calls of their modules), ``UNSAVED_HOLDERS``
(``(place, storage)`` pairs: the place holds that storage only on paths where nothing saved it,
what a join of a path that saved it with a path that rebound the name keeps), and, for branch
correlation, ``ASSUMED`` (the tests on local names a path passed) and ``GUARDED`` (the values a
join merged from paths one such test told apart, taken back by a later test on the same name).
``join_states`` and ``widen_states`` are the only ways two states meet.
"""

import enum
from typing import Dict, NamedTuple, Optional, Tuple

EMPTY: frozenset = frozenset()
DROPPED = "dropped@"  # a fact: computed from the detached read (``x.data``) at ``line:col`` of a tensor requiring grad
BOUND_AT = "bound_at:"  # a fact of an int a name holds: an assignment that may have bound it (``line,column``)
MAY_CALL = "may_call:"  # a fact: a function or class of the file this value may name (its paths named different ones)
BESIDE_FRESH = "beside_fresh"  # a fact of a function a call site passes beside new objects only: no candidate
MOST_CANDIDATES = 4  # more functions than this on one value: what a call of it does is not known
FIELDS = "fields:"  # a fact: a named tuple's field names, in order (``|``-joined)
IN_FLIGHT = "!in_flight"  # state key: frozenset of copy ids still running
ENTRY = "entry"  # in IN_FLIGHT: whatever copies were in flight when the function was called
SAVED = "!saved"  # state key: frozenset of storage ids saved for backward
NO_GRAD = "!no_grad"  # state key: frozenset of the contexts that may have turned grad mode off
INFERENCE = "!inference"  # state key: a non-empty set on a path no backward follows (every path joined there has it)
UNSAVED_HOLDERS = "!unsaved_holders"  # state key: (place, storage) pairs, held only where not saved
FORWARDED = "!forwarded"  # state key: frozenset of the storages of modules whose forward may have run
HOOKED = "!hooked"  # state key: frozenset of (module storage, hook, in a graph, its closure) of forward hooks registered here
# state keys of branch correlation: the conditions a path assumed, ``(name, truth)`` pairs, and
# the values a join merged from paths a condition told apart, ``(name, place, when true, when
# false, joined)``
ASSUMED = "!assumed"
DEAD = "!dead"  # a path no value can take (a test it cannot pass): nothing follows it
GUARDED = "!guarded"
# state key: a non-empty set on a path that runs with no CUDA device (a CUDA test failed there),
# where no copy is asynchronous: a buffer pinned on every other path joined there is pinned
# wherever it matters (``if dev == "cuda": staging = staging.pin_memory()``)
WITHOUT_CUDA = "!without_cuda"


class Evidence(enum.Enum):
    """Where a component's fact comes from; ``strong`` says whether a safe fix may rest on it."""

    TORCH_API = "made by a torch API"
    TENSOR_METHOD = "the result of a tensor method"
    USE = "used as only a tensor can be"
    ISINSTANCE = "checked with isinstance"
    SUMMARY = "returned by a function of this module"
    CALLERS = "what this module's callers pass"
    MODULE_CALL = "the output of an nn.Module"
    ANNOTATION = "annotated as a tensor"
    # an item of a container whose items are not all known to be tensors (``for w in (t, extra)``)
    SOME_ITEMS = "one of the items of a container not all known to be tensors"
    # a module-level or enclosing name another function rebinds (``global``, ``nonlocal``, ``globals()``)
    REBOUND = "a name that another function may rebind"
    # ``model(x)`` where only an annotation says ``model`` is an nn.Module
    ANNOTATED_MODULE = "the output of a module known only by its annotation"
    LOSS = "a loss, computed where grad is recorded"
    # ``layer.aux_loss`` of an unknown ``layer``, where one class of the file stores ``self.aux_loss``
    ATTRIBUTE_NAME = "what the only class of this file with that attribute stores there"
    # ``model.encoder.weight``: the weight or bias of what a module holds under another name (a layer)
    SUBMODULE_PARAMETER = "the weight or bias of a module's sub-module, by its name"
    # ``def fit(model, ...)``: an unannotated parameter called on a batch where a backward runs,
    # or called and then deep-copied (a snapshot of a module)
    TRAINED = "called as the module this function trains or snapshots"
    COLLATED = "collated by a DataLoader into a batch"

    @property
    def strong(self) -> bool:
        return self not in (Evidence.ANNOTATION, Evidence.SOME_ITEMS, Evidence.REBOUND, Evidence.ANNOTATED_MODULE,
                            Evidence.LOSS, Evidence.ATTRIBUTE_NAME, Evidence.TRAINED, Evidence.SUBMODULE_PARAMETER)


class Value(NamedTuple):
    kinds: frozenset
    grad: bool = False
    graph: bool = False
    storages: frozenset = EMPTY
    device: frozenset = EMPTY
    pending: frozenset = EMPTY
    fresh: bool = False
    why: Tuple[Tuple[str, Evidence], ...] = ()
    kind_from: frozenset = EMPTY
    grad_from: frozenset = EMPTY
    called: frozenset = EMPTY
    items: Optional[Tuple[Tuple[str, "Value"], ...]] = None
    qual: str = ""
    facts: frozenset = EMPTY
    pinned: bool = False
    made: frozenset = EMPTY

    @property
    def is_tensor(self) -> bool:
        return "tensor" in self.kinds

    def evidence(self, component: str) -> Optional[Evidence]:
        for name, evidence in self.why:
            if name == component:
                return evidence
        return None

    def item(self, key: str) -> Optional["Value"]:
        """The value at a constant key, else the ``[*]`` summary, else None."""
        if self.items is None:
            return None
        star = None
        for name, value in self.items:
            if name == key:
                return value
            if name == "*":
                star = value
        return star

    def all_items(self) -> "Optional[Value]":
        """The join of every item: what iterating or an unknown index yields."""
        return join_all([value for _, value in self.items]) if self.items else None


def kinds(*names: str) -> frozenset:
    return frozenset(names)


UNKNOWN = Value(kinds("?"))
NUMBER = Value(kinds("number"))
INTEGER = Value(kinds("int"))
NONE = Value(kinds("none"))


def _join_why(a, b):
    if a == b:
        return a
    if not a or not b:
        return ()
    theirs = dict(b)
    joined = []
    for component, evidence in a:
        other = theirs.get(component)
        if other is not None:
            joined.append((component, other if evidence.strong and not other.strong else evidence))
    return tuple(joined)


def _join_items(a, b, widen=False):
    if a is None or b is None:
        items = a if b is None else b
        if items is None or not widen:
            return items
        a, b = items, ()
    merged: Dict[str, Value] = dict(a)
    for key, value in b:
        merged[key] = join(merged[key], value) if key in merged else value
    if widen and merged and (len(merged) > 1 or "*" not in merged):  # an empty container stays empty
        summary = None
        for value in merged.values():
            summary = value if summary is None else join(summary, value)
        return (("*", _without_items(summary)),)
    return tuple(merged.items())


def _without_items(value: Value) -> Value:
    return value if value.items is None else value._replace(items=(("*", UNKNOWN),))


def join(a: Value, b: Value) -> Value:
    """The least value both may be: unions of may-components, intersections of must-ones."""
    if a is b or a == b:
        return a
    return Value(
        a.kinds | b.kinds,
        a.grad or b.grad,
        a.graph or b.graph,
        a.storages | b.storages,
        a.device | b.device if a.device and b.device else EMPTY,
        a.pending | b.pending,
        a.fresh and b.fresh,
        _join_why_beside_none(a, b),
        a.kind_from | b.kind_from,
        a.grad_from | b.grad_from,
        a.called | b.called,
        _join_items(a.items, b.items),
        a.qual if a.qual == b.qual else "",
        (b.facts if a.kinds == NONE.kinds else a.facts if b.kinds == NONE.kinds
         else a.facts & b.facts | _may_facts(a, b) | _may_facts(b, a)) | _candidates(a, b),
        a.pinned and b.pinned,
        a.made | b.made,
    )


def _may_facts(side: Value, other: Value) -> frozenset:
    """The facts of what a value may be made of, kept from one side of a join (``dropped@``:
    computed from a detached read of a tensor requiring grad, ``reg = reg + p.data.sum()``);
    ``bound_at:``, an assignment that may have bound the int a name holds); every other fact holds
    only where both sides have it. Kept only where the other side does not
    bring a graph the read never meets on its own path (``w = p if train else p.data``)."""
    if not side.facts or other.grad and not side.grad:
        return EMPTY
    return frozenset(fact for fact in side.facts if fact.startswith((DROPPED, BOUND_AT)))


def _candidates(a: Value, b: Value) -> frozenset:
    """The functions of the file a value joined from paths naming different ones may call
    (``load(raw, shift)`` at one call site, ``load(raw, shift_)`` at another): a call of it is a
    call of any of them."""
    if a.qual == b.qual:
        return EMPTY
    named = frozenset(MAY_CALL + side.qual for side in (a, b) if side.qual.startswith(("local:", "class:"))
                      and BESIDE_FRESH not in side.facts) | \
        frozenset(fact for side in (a, b) for fact in side.facts if fact.startswith(MAY_CALL))
    return named if len(named) <= MOST_CANDIDATES else EMPTY


def join_all(values) -> Value:
    """What any of ``values`` (one or more) may be."""
    result = values[0]
    for value in values[1:]:
        result = join(result, value)
    return result


def _join_why_beside_none(a: Value, b: Value) -> tuple:
    """A value that may be None keeps the evidence (and the facts, ``join``) of what it is
    otherwise: a rule asks for a kind only once ``is not None`` narrowed the None away."""
    if a.kinds == NONE.kinds:
        return b.why
    if b.kinds == NONE.kinds:
        return a.why
    return _join_why(a.why, b.why)


def items_join(value: Value) -> Optional[Value]:
    """What an unknown item of a container may be: the join of its items, a tensor by weak
    evidence (``SOME_ITEMS``) when some items are tensors and others may not be."""
    joined = value.all_items()
    if joined is None or not joined.is_tensor or joined.kinds == kinds("tensor"):
        return joined
    return joined._replace(kinds=kinds("tensor"), why=(("kind", Evidence.SOME_ITEMS),) + tuple(
        pair for pair in joined.why if pair[0] != "kind"))


def without_none(value: Value) -> Value:
    """The value where ``is not None`` held."""
    return value._replace(kinds=value.kinds - NONE.kinds) if "none" in value.kinds and len(value.kinds) > 1 else value


def widen(old: Value, new: Value) -> Value:
    """A join that cannot climb forever: items collapse into ``[*]``, narrowing facts drop."""
    joined = join(old, new)
    if joined == old:
        return old
    return joined._replace(items=_join_items(joined.items, None, widen=True), facts=frozenset(
        fact for fact in joined.facts if fact.startswith((DROPPED, MAY_CALL))))


def join_states(a: dict, b: dict, merge=join) -> dict:
    """Places bound on one path only keep that path's value (reading them elsewhere fails)."""
    result = dict(a)
    for place, value in b.items():
        mine = result.get(place)
        if mine is None:
            result[place] = value
        elif mine is not value:
            result[place] = mine | value if type(mine) is frozenset else merge(mine, value)
    if INFERENCE in result:  # a must-fact: inference only where both paths were, for a reason both had
        both = a.get(INFERENCE, EMPTY) & b.get(INFERENCE, EMPTY)
        if both:
            result[INFERENCE] = both
        else:
            del result[INFERENCE]
    if WITHOUT_CUDA in result:
        _pinned_where_it_matters(a, b, result)
    if ASSUMED in result or GUARDED in result:
        _correlate(a, b, result, merge is join)
    if a.get(SAVED) != b.get(SAVED) or UNSAVED_HOLDERS in result:
        _unsaved_holders(a, b, result)
    return result


def _pinned_where_it_matters(a: dict, b: dict, result: dict) -> None:
    """A join of a path without CUDA (``WITHOUT_CUDA``) and one with: what the other path pinned
    stays pinned, copies being synchronous on the first; the key is kept where both had it."""
    for without, other in ((a, b), (b, a)):
        if WITHOUT_CUDA in without and WITHOUT_CUDA not in other:
            for place, value in other.items():
                joined = result.get(place)
                if type(value) is Value and value.pinned and type(joined) is Value and not joined.pinned:
                    result[place] = joined._replace(pinned=True)
    if WITHOUT_CUDA not in a or WITHOUT_CUDA not in b:
        del result[WITHOUT_CUDA]


def _unsaved_holders(a: dict, b: dict, result: dict) -> None:
    """A storage one path saved and the other did not (``if gated: skip = h; h = gate(h);
    h = skip + h``: the gate saved the first sum, which ``h`` names only on the other path):
    each place that holds it, after the join, only where it was not saved keeps that pair, so a
    write through the place is not a write to saved memory. Only a local name keeps pairs: an
    attribute or an item is rebound by code the state does not follow (``put_back(self, skip)``,
    ``setattr``), and a pair left behind would hide a write to saved memory."""
    result.pop(UNSAVED_HOLDERS, None)
    saved = result.get(SAVED, EMPTY)
    if not saved:
        return
    paths = [(path, path.get(SAVED, EMPTY), path.get(UNSAVED_HOLDERS, EMPTY)) for path in (a, b)]
    pairs = frozenset(
        (place, storage) for place, value in result.items()
        if type(value) is Value and value.storages & saved and place.isidentifier()
        for storage in value.storages & saved
        if all(type(path.get(place)) is not Value or storage not in path[place].storages or storage not in kept
               or (place, storage) in unsaved for path, kept, unsaved in paths))
    if pairs:
        result[UNSAVED_HOLDERS] = pairs


def _correlate(a: dict, b: dict, result: dict, joining: bool) -> None:
    """Where the two paths are told apart by a condition (``if cast: w = w.float()`` and its
    else), each place the join merges keeps both values under that condition (``GUARDED``):
    a later ``if cast:`` takes the value of its own path back (paths told apart by several names
    correlate on the first in sorted order). Where only one path assumed a condition (``if not
    self.training and track:``, whose else says nothing of the mode), a later test going the other
    way takes the other path's value, and one going the same way the joined value. Only what both
    paths assumed, and the guards both kept, hold after the join; a widening forgets them all (a
    loop must settle)."""
    assumed_a, assumed_b = a.get(ASSUMED), b.get(ASSUMED)
    result.pop(ASSUMED, None)
    result.pop(GUARDED, None)
    if not joining:
        return
    kept = a.get(GUARDED, EMPTY) & b.get(GUARDED, EMPTY)
    if kept:
        result[GUARDED] = kept
    if assumed_a is None and assumed_b is None:
        return
    assumed_a, assumed_b = assumed_a or EMPTY, assumed_b or EMPTY
    if assumed_a & assumed_b:
        result[ASSUMED] = assumed_a & assumed_b
    condition = next((name for name, truth in sorted(assumed_a) if (name, not truth) in assumed_b), None)
    if condition is not None:
        if (condition, False) in assumed_a:
            a, b = b, a
        guards = frozenset((condition, place, a[place], b[place], joined) for place, joined in result.items()
                           if place[:1] != "!" and type(joined) is Value and place in a and place in b
                           and a[place] is not b[place] and a[place] != b[place])
    else:  # one path assumed what the other did not test (``if not self.training and track:``, its else):
        # where it goes the other way, only the other path ran
        one_sided = [(name, truth, side, other) for side, mine, other, theirs in (
            (a, assumed_a, b, assumed_b), (b, assumed_b, a, assumed_a)) for name, truth in sorted(mine)
            if not any(name == known for known, _ in theirs)]
        if not one_sided:
            return
        condition, truth, side, other = one_sided[0]
        guards = frozenset((condition, place, *((joined, other[place]) if truth else (other[place], joined)), joined)
                           for place, joined in result.items()
                           if place[:1] != "!" and type(joined) is Value and place in side and place in other
                           and side[place] is not other[place] and side[place] != other[place])
    if guards:
        result[GUARDED] = result.get(GUARDED, EMPTY) | guards


def widen_states(old: dict, new: dict) -> dict:
    return join_states(old, new, widen)


def holds_a_graph(value: Optional[Value]) -> bool:
    """Whether a value is (or holds as an item) a non-leaf of a graph: a forward's output, not a
    parameter or a buffer (which require grad, or not, as leaves)."""
    return value is not None and (value.graph or any(holds_a_graph(item) for _, item in value.items or ()))


def storages_held(value: Value) -> frozenset:
    """The storages a value holds, its container items' included (a call's new tuple and what is in it)."""
    found = value.storages
    for _, item in value.items or ():
        found = found | storages_held(item)
    return found


def containers_of(storages) -> frozenset:
    """The containers holding ``storages`` that are items not known one by one (``held_within``
    an item): a container holds them, a write of one is a write of what it holds."""
    return frozenset(storage[1] for storage in storages
                     if type(storage) is tuple and len(storage) in (2, 3) and storage[0] == "item")


def held_within(kind: str, storage, *name) -> tuple:
    """The storage of what ``storage`` holds (an ``("item", s)``, at a constant key an
    ``("item", s, "'key'")``: a mapping's entries are objects of their own, an ``("attribute", s, name)``),
    nested at most two deep: what a loop walks (``node = node[0]``, ``node = node.next``) is one
    object past that depth, so the storages a loop meets stay finitely many."""
    inner = storage
    for _ in range(2):
        if not (type(inner) is tuple and inner[:1] in (("item",), ("attribute",))):
            return (kind, storage) + name
        inner = inner[1]
    return storage
