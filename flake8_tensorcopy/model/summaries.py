"""Function summaries, made by the same solver over symbolic parameters.

Parameter ``i`` of function ``f`` enters a summary solve as a symbol ``(f, i)``: kind and grad
unknown but inherited (``kind_from``/``grad_from`` = {(f, i)}), storage ``("param", i, f)``; a
nested function's summary keeps its enclosing function's symbols for that one to replace. What the solve finds at the exit
is the summary: the returned value as a function of the parameters (inside tuples, lists and
dicts too: ``Value.items``), the parameters whose storage is written in place, what is stored on
the receiver (``self.<attr>``), copies still in flight, storages saved for backward, and whether
it runs backward or steps an optimizer. ``instantiate`` replaces the symbols by what a call site
passes; the model computes summaries on demand, callees first, so their order is the call
graph's, and a recursive call meets an unknown result.
"""

from typing import Dict, NamedTuple, Optional, Sequence

from flake8_tensorcopy import knowledge as k
from flake8_tensorcopy.model import layout

from flake8_tensorcopy.model.values import DROPPED, EMPTY, FIELDS, MAY_CALL, UNKNOWN, Evidence, Value, held_within, items_join, join


class Summary(NamedTuple):
    returns: Optional[Value]  # None: never returns a value (or only None)
    writes: frozenset  # parameter indices whose storage it writes in place
    stores: Dict[str, Value]  # attribute path under the receiver -> value stored there
    in_flight: frozenset  # asynchronous copies started and not synced at the exit
    syncs: bool  # every path to the exit waits for the copies in flight at the call
    reads: frozenset  # parameter indices whose values it reads on the host before any sync
    saved: frozenset  # storages autograd keeps for backward (symbols included)
    backward: bool
    steps: bool
    stepped: frozenset = frozenset()  # parameter indices of the optimizers it steps
    written_through: Dict[int, frozenset] = {}  # parameter index -> per write of it, the aliases it went through
    # a nested function's enclosing names whose containers it fills (``acts[name] = out`` in a hook)
    closure_stores: Dict[str, Value] = {}
    # a module name it binds under ``global`` -> what it holds at the exit (``global BEST; BEST = v``)
    global_stores: Dict[str, Value] = {}
    # parameter index -> the items it put in the container a caller handed it (``store["w"] = w.detach()``)
    parameter_stores: Dict[int, Value] = {}
    writes_held: frozenset = frozenset()  # storages made elsewhere (``self.buf`` from ``__init__``) it writes in place
    held_written_through: frozenset = frozenset()  # the aliases those writes went through (``w.data``)
    reads_held: frozenset = frozenset()  # storages made elsewhere (``self.state`` from ``__init__``) whose values it reads
    reads_held_made: frozenset = frozenset()  # the aliases those reads went through (``self.reference`` a detach kept)
    item_writes: frozenset = frozenset()  # parameter indices it assigns items of (``p[i] = v``): writes of a tensor only
    # (parameter index, path of keys) of what it wrote, or a slot of, in what it indexed out of a parameter
    # (``batch["feats"][:, 0] = 1``, ``batch["inputs"]["feats"].mul_(2)``, also through a helper it hands it
    # to): the item at that path (any item for ``*``) where the caller passes a container
    keyed_items_written: frozenset = frozenset()
    # of ``writes``, the parameter indices it writes only through items at keys (``batch["feats"].mul_(2)``):
    # where the caller passes a container, those items (``keyed_items_written``), not every item
    writes_at_keys: frozenset = frozenset()
    items_written: frozenset = frozenset()  # parameter indices whose items it writes in place (a loop over ``ts``)
    items_assigned: frozenset = frozenset()  # parameter indices whose items it assigns parts of (``a[:] = v``)
    saved_returned: frozenset = frozenset()  # of what it returns, what a path saved before returning it
    forwarded: frozenset = frozenset()  # the modules it ran the forward of (``FORWARDED``), symbols included
    retained: frozenset = frozenset()  # parameter indices it calls ``retain_grad()`` on: they keep their ``.grad``
    # (parameter index, attribute path, only where it holds an array) per write of an object's
    # attribute a caller passes (``s.image -= m`` of a record, ``self.ref.zero_()`` of what another
    # method stored, ``s.image[m] = 0``: a write only where the caller's holds a tensor or an array)
    attribute_writes: frozenset = frozenset()
    refills: frozenset = frozenset()  # of a generator: the memory it yielded and writes again for a later item
    drops_grads: bool = False  # some path drops gradients (``zero_grad()``, ``p.grad = None``): a caller's held ones are old
    saved_if_grad: frozenset = frozenset()  # parameter indices kept for their own gradient (``w ** 2``), where it needs one
    # (parameter symbol, call site, arguments, keywords) per call of what a caller passes (``fn(t)``)
    parameter_calls: frozenset = frozenset()
    identity_tests: frozenset = frozenset()  # (comparison node, values compared) of what callers pass (``a is b``)


_ARRAYS = frozenset(("tensor", "ndarray"))
SHALLOW_OF_PASSED = "shallow_of_passed"  # a fact: ``copy.copy`` in a summary of what a call passes (or an item of it)
_PYTHON_DATA = frozenset(("list", "tuple", "number", "int", "bool", "str"))  # no memory a tensor can be
CAST_TO = "cast_to:"  # a fact: a cast to this dtype of what a caller passes (``t.float()``), the tensor itself or a copy
PICKED_BY = "picked_by:"  # a fact: a part of a tensor or array indexed by what a caller passes (``i@site``)
SURELY_CAST = "surely_cast"  # a fact beside CAST_TO: the tensor itself only where the caller's surely has that dtype (``ids.long()``)


def surely_dtype(value: Value) -> str:
    """The dtype a value surely has (its ``dtype:`` fact), else empty."""
    found = [fact[6:] for fact in value.facts if fact.startswith("dtype:")]
    return found[0] if len(found) == 1 else ""


def plain(summary: Summary) -> bool:
    """Whether a call of the function is its return value alone: a value that depends on no
    argument and holds no memory (``return self.cfg.size > 2``), and every other field of the
    summary empty (no effect of any kind)."""
    returned = summary.returns
    return (returned is None or not (returned.storages or returned.kind_from or returned.grad_from
                                     or returned.items or returned.made or returned.pending or returned.grad)) and not any(
        getattr(summary, field) for field in Summary._fields if field != "returns")


def parameter_index(storage, function: str) -> Optional[int]:
    """``i`` for the storage symbol ``("param", i, function)``, else None."""
    if type(storage) is tuple and len(storage) == 3 and storage[0] == "param" and storage[2] == function:
        return storage[1]
    return None


def parameter_holding(storage, function: str) -> Optional[int]:
    """``i`` where ``storage`` is parameter ``i`` of ``function`` or an item or attribute held
    within it (``batch["x"]`` of a dict a caller passes: the caller's tensor)."""
    while type(storage) is tuple and storage[:1] in (("item",), ("attribute",)):
        storage = storage[1]
    return parameter_index(storage, function)


def _item_of_parameter(storage, function: str) -> bool:
    """Whether ``storage`` is an item a parameter of ``function`` holds (``("item", param[, key])``)."""
    return type(storage) is tuple and storage[:1] == ("item",) and parameter_index(storage[1], function) is not None


def held_through(storage):
    """The storage an ``("attribute", storage, name)`` storage is an attribute of, else itself."""
    return storage[1] if type(storage) is tuple and len(storage) == 3 and storage[0] == "attribute" else storage


def _cut_from_graph(value: Value) -> Value:
    """What a call made where grad was off: no tensor of it, nor of its items, requires grad."""
    return value._replace(grad=False, graph=False, items=None if value.items is None else tuple(
        (key, _cut_from_graph(item)) for key, item in value.items))


def _item_at(value: Value, key: str) -> Value:
    """The item of a returned tuple or list at a constant key (``[-2]`` counted from its end),
    all of them joined where the position is not known."""
    if not value.items:
        return UNKNOWN
    positions = [name for name, _ in value.items if name.isdigit()]
    if key.startswith("-") and key[1:].isdigit() and len(positions) == len(value.items):
        key = str(len(positions) - int(key[1:]))
    return value.item(key) or items_join(value)


def _call_site(storage):
    """The call whose result ``storage`` is, or is an item of (``item_of_a_call``)."""
    return storage[1] if type(storage) is tuple and len(storage) == 3 and storage[0] == "item" else storage


def allocated_in(storage, lines: tuple) -> bool:
    """Whether ``storage`` is memory made by code on ``lines`` (first, last): an allocation
    site there, or what a call there made."""
    if type(storage) is not tuple:
        return False
    site = storage[1] if len(storage) == 3 and storage[0] == "call" else storage
    return len(site) in (2, 4) and type(site[0]) is int and lines[0] <= site[0] <= lines[1]


def _layer_parameter(actual: Value, name: str) -> bool:
    """Whether ``name`` of what a call site passes is a parameter of a torch layer: the model
    keeps a layer's parameters as the layer's own memory (``nn.Linear``'s ``weight``), so a callee's
    ``model.weight`` is that memory, as the caller's own read of it is."""
    return is_torch_layer(actual) and "module_parameter" in k.role_of("attribute", name)


def is_torch_layer(value: Value) -> bool:
    """Whether ``value`` is surely a torch layer (a module, not a class of the file)."""
    return "module" in value.kinds and "?" not in value.kinds and not any(
        kind.startswith("object:") for kind in value.kinds)


_INDEX_ARRAYS = frozenset(("list", "ndarray", "tensor"))  # an index of these picks elements: a copy


class Instantiation:
    """The symbols of one summary replaced by one call site's arguments (``None``: not passed)."""

    def __init__(self, function: str, actuals: Sequence[Optional[Value]], call_value, call_site=None, lines=None,
                 per_instance: Optional[Dict] = None, instance_dtypes: Optional[Dict] = None,
                 instance_layers: frozenset = frozenset(), enclosing: Optional["Instantiation"] = None):
        self.function = function
        # a closure a factory made (``log = make_logger(lin)``): its factory's parameters are
        # what that factory's call passed, replaced after the closure's own
        self.enclosing = enclosing
        self.actuals = actuals
        self.call_value = call_value  # calls an actual argument at the summary's call sites (for ``called``)
        # a method called on an instance the file builds: what its class allocates for each
        # instance (``self.w`` made in ``__init__``) is that instance's, as ``obj.w`` reads it
        self.per_instance = per_instance or {}
        self.instance_dtypes = instance_dtypes or {}  # the dtype of what the instance's constructor kept
        # the memory of the torch layers the instance keeps: ``self.model.weight`` is the layer's own
        self.instance_layers = instance_layers
        # what the callee allocates (a site within ``lines``) is new at each call: named by the
        # call site too, so two calls of one helper hand back two tensors, not one
        self.call_site = call_site
        self.lines = lines

    def actual(self, index: int) -> Value:
        value = self.actuals[index] if index < len(self.actuals) else None
        return UNKNOWN if value is None else value

    def storages(self, storages: frozenset) -> frozenset:
        mine = self.own_storages(storages)
        return mine if self.enclosing is None else self.enclosing.storages(mine)

    def own_storages(self, storages: frozenset) -> frozenset:
        function = self.function
        if self.call_site is not None:
            storages = frozenset(self.per_call(storage) for storage in storages)
        if self.per_instance:  # (an object's attribute of a storage it maps: that instance's attribute)
            storages = frozenset(mapped for storage in storages for mapped in self.per_instance.get(storage, (
                (inner if inner in self.instance_layers and "module_parameter" in k.role_of("attribute", storage[2])
                 else held_within("attribute", inner, storage[2]) for inner in self.per_instance[storage[1]])
                if type(storage) is tuple and storage[:1] == ("attribute",) and storage[1] in self.per_instance
                else (storage,))))
        if not any(parameter_index(held_through(storage), function) is not None
                   or _item_of_parameter(storage, function) for storage in storages):
            return storages
        result = set()
        for storage in storages:
            index = parameter_index(held_through(storage), function)
            if _item_of_parameter(storage, function):
                result |= self.items_passed(self.actual(storage[1][1]), storage[2:])
            elif index is None:
                result.add(storage)
            elif storage is held_through(storage):
                result |= self.actual(index).storages
            elif _layer_parameter(self.actual(index), storage[2]):
                result |= self.actual(index).storages  # ``model.weight`` of a torch layer passed: the layer's memory
            else:  # an attribute of the parameter: the same attribute of what is passed
                result |= {held_within("attribute", actual, storage[2]) for actual in self.actual(index).storages}
        return frozenset(result)

    @staticmethod
    def items_passed(actual: Value, key: tuple) -> frozenset:
        """The memory of an item of what the call site passes (``batch["x"]`` of the dict
        given for ``batch``, any item where the key is not known): its items' where it knows
        them, else the items it holds as a container."""
        if actual.items:
            found = actual.item(key[0]) if key else None
            chosen = [found] if found is not None else [item for _, item in actual.items]
            held = frozenset().union(*(item.storages for item in chosen))
            if held:
                return held
        return frozenset(held_within("item", storage, *key) for storage in actual.storages)

    def parameter_of(self, storage) -> Optional[int]:
        """The parameter whose memory (or an attribute of it) ``storage`` is in the summary."""
        return parameter_index(held_through(storage), self.function)

    def cast_copies(self, value: Value) -> bool:
        """Whether a cast the callee made of a parameter (``CAST_TO``), or of what its object's
        constructor kept, copies at this call: every tensor passed there surely has another dtype."""
        casts = [fact[len(CAST_TO):] for fact in value.facts if fact.startswith(CAST_TO)]
        indices = {self.parameter_of(storage) for storage in value.storages} - {None}
        # or of what the receiver's constructor kept (``self.images[i]``), as this instance holds it
        kept = [self.instance_dtypes[storage] for storage in value.storages if storage in self.instance_dtypes]
        if len(casts) != 1 or not indices and not kept:
            return False
        dtypes = {surely_dtype(self.actual(index)) for index in indices} | set(kept)
        if SURELY_CAST in value.facts:
            return dtypes != {casts[0]}
        return "" not in dtypes and casts[0] not in dtypes

    def picked_anew(self, value: Value):
        """The allocation site of a part the callee indexed by a parameter (``PICKED_BY``) where this
        call passes a list, an array or a tensor there: advanced indexing, a copy; else None."""
        picked = [fact[len(PICKED_BY):].partition("@") for fact in value.facts if fact.startswith(PICKED_BY)]
        if len(picked) != 1:
            return None
        index, _, site = picked[0]
        passed = self.actual(int(index))
        if not passed.kinds or not passed.kinds <= _INDEX_ARRAYS or "0-d" in passed.facts:
            return None
        return tuple(int(part) for part in site.split(","))

    def relaid(self, value: Value):
        """The facts of ``value`` at this call, its layout steps (``layout.RELAYOUT``) replayed on
        the sizes the call passes, and whether a step copied there (``x.t().reshape(-1)`` of a 2x3
        tensor: nothing of the result is the caller's memory)."""
        steps = layout.program(value.facts)
        if steps is None:
            return value.facts, False
        facts = layout.without_layout(value.facts)
        # (of one parameter; ``contiguous()`` also names its own new memory, for the calls where it copies)
        indices = {self.parameter_of(storage) for storage in value.storages} - {None}
        if len(indices) != 1:
            return facts, False
        actual = self.actual(indices.pop())
        known, passed = layout.decode(actual.facts), layout.program(actual.facts)
        if known is not None:
            after, copied = layout.replay(known, steps)
            return facts | ({layout.encode(after)} if after is not None and not copied else set()), copied
        if passed is not None and not any(layout.symbolic(operation) for operation in steps):
            # the caller's own parameter, in its summary: the steps of both
            return facts | {layout.RELAYOUT + repr(passed + steps)}, False
        return facts, False

    def converts(self, value: Value) -> bool:
        """Whether a tensor or array the callee made of a parameter's memory (``torch.as_tensor(v)``)
        is new memory at this call: what it passes there is surely no tensor nor array (a list,
        a number), so nothing of it can be the result's memory."""
        if not value.kinds or not value.kinds <= _ARRAYS:
            return False
        indices = {parameter_index(storage, self.function) for storage in value.storages} - {None}
        return bool(indices) and all(
            self.actual(index).kinds and self.actual(index).kinds <= _PYTHON_DATA for index in indices)

    def shallow_copies(self, value: Value) -> bool:
        """Whether the callee's ``copy.copy`` of what this call passes (``SHALLOW_OF_PASSED``) is
        a copy of its own here: what it passes there, or its items, are surely no tensor (an
        array's copy copies its data, a number has no memory to share)."""
        if SHALLOW_OF_PASSED not in value.facts:
            return False
        passed = []
        for storage in value.storages:
            if _item_of_parameter(storage, self.function):
                passed.append(items_join(self.actual(parameter_index(storage[1], self.function))) or UNKNOWN)
            elif parameter_index(storage, self.function) is not None:
                passed.append(self.actual(parameter_index(storage, self.function)))
        return bool(passed) and all(actual.kinds and not actual.kinds & {"tensor", "?"} for actual in passed)

    def per_call(self, storage):
        """An allocation site inside the callee, named by this call (``("call", site, storage)``);
        so is what a call inside the callee made (its own ``("call", ...)`` storage), so that a
        helper of a helper hands back new memory at every outer call too."""
        return ("call", self.call_site, storage) if allocated_in(storage, self.lines) else storage

    def own(self, symbols: frozenset):
        """The parameter indices among ``symbols`` that are this function's, and the others."""
        mine = [index for name, index in symbols if name == self.function]
        return mine, frozenset(symbol for symbol in symbols if symbol[0] != self.function)

    def inherited_items(self, kind_from) -> Optional[tuple]:
        """What a parameter passed on as it is holds: the one actual's items (an optimizer's
        parameters, a list's tensors)."""
        if len(kind_from) != 1:
            return None
        return self.actual(kind_from[0]).items

    def inherited_fields(self, kind_from) -> frozenset:
        """A named tuple passed on as it is keeps its field names (``batch.targets`` of what
        ``mask_(batch)`` returns)."""
        if len(kind_from) != 1:
            return EMPTY
        return frozenset(fact for fact in self.actual(kind_from[0]).facts if fact.startswith(FIELDS))

    def element_passed(self, value: Value) -> Optional[Value]:
        """An item of a container a parameter holds, where the summary knows no more of it
        (``list(params)``, ``for p in params``): what the call site passes holds its items."""
        if value.kinds != UNKNOWN.kinds or not value.storages:
            return None
        indices = {parameter_index(storage[1], self.function) if type(storage) is tuple and len(storage) == 2
                   and storage[0] == "item" else None for storage in value.storages}
        if len(indices) != 1 or None in indices:
            return None
        element = items_join(self.actual(indices.pop()))
        if element is None or not value.made:
            return element
        if self.shallow_copies(value):  # ``copy.copy`` of an array or a number: a copy of its own
            return element._replace(storages=EMPTY, made=EMPTY, fresh=True)
        # an alias the callee made of it (``[p.data for p in params]``): that alias of the caller's
        # item, cut from the graph where it was detached
        detached = any(len(made) == 3 and made[2] == "detach" for made in value.made)
        return element._replace(made=element.made | value.made, grad=element.grad and not detached,
                                graph=element.graph and not detached)

    def dropped_here(self, facts: frozenset) -> frozenset:
        """A detached read of a parameter in the callee (``emb.data``, ``dropped@?i@line:col``)
        drops a gradient at this call where what it passes there requires grad (``dropped@``); in
        the summary of a helper passing its own parameter on, where that one's callers' does."""
        conditional = [fact for fact in facts if fact.startswith(DROPPED + "?")]
        if not conditional:
            return facts
        kept = set(facts) - set(conditional)
        for fact in conditional:
            index, _, where = fact[len(DROPPED) + 1:].partition("@")
            actual = self.actual(int(index))
            if actual.grad:
                kept.add(DROPPED + where)
            else:
                kept.update(f"{DROPPED}?{outer}@{where}" for _, outer in actual.grad_from)
        return frozenset(kept)

    def function_passed_on(self, value: Value, kind_from) -> str:
        """The function of the file a call site passes, where the summary's value is that
        parameter itself (``self.transform = transform``): a later call of it calls that function."""
        if len(kind_from) != 1:
            return ""
        qual = self.actual(kind_from[0]).qual
        return qual if qual.startswith(("local:", "class:")) and (
            "param", kind_from[0], self.function) in value.storages else ""

    def functions_passed_on(self, value: Value, kind_from) -> frozenset:
        """The same, where the call sites pass one of several functions of the file (``MAY_CALL``)."""
        if len(kind_from) != 1 or ("param", kind_from[0], self.function) not in value.storages:
            return EMPTY
        return frozenset(fact for fact in self.actual(kind_from[0]).facts if fact.startswith(MAY_CALL))

    def value(self, value: Value) -> Value:
        if value is None:
            return None
        element = self.element_passed(value)
        if element is not None:
            return element
        kinds, grad, graph, device, why = value.kinds, value.grad, value.graph, value.device, value.why
        kind_from, other_kinds = self.own(value.kind_from)
        qual = value.qual or self.function_passed_on(value, kind_from)
        grad_from, other_grads = self.own(value.grad_from)
        called = [(symbol[1], symbol[2] if len(symbol) > 2 else ()) for symbol in value.called
                  if symbol[0] == self.function]
        other_calls = frozenset(symbol for symbol in value.called if symbol[0] != self.function)
        if kind_from:
            kinds = kinds - {"?"} if "?" in kinds and not other_kinds else kinds
            inherited = [self.actual(index) for index in kind_from]
            for actual in inherited:
                kinds = kinds | actual.kinds
                # (in a helper's summary, of its own parameter: the result stays symbolic in that one)
                other_kinds = other_kinds | actual.kind_from
            if not device:
                device = frozenset().union(*(actual.device for actual in inherited))
        keyed = {index for index, keys in called if keys}
        for index in grad_from:
            if index in keyed:  # an item of what calling it returns: that item's own grad (below)
                continue
            actual = self.actual(index)
            # a module passed in: what is computed from its output (``m(x).relu()``) is in a graph
            grad = grad or actual.grad or "module" in actual.kinds
            graph = graph or actual.grad or "module" in actual.kinds
            other_grads = other_grads | actual.grad_from
        storages, made = value.storages, value.made
        facts, relaid_copies = self.relaid(value)
        facts = self.dropped_here(facts)
        if not qual and kind_from:
            facts = facts | self.functions_passed_on(value, kind_from)
        if self.cast_copies(value) or self.converts(value) or relaid_copies or self.shallow_copies(value):
            # a copy of what the call site passes
            storages = frozenset(storage for storage in storages if self.parameter_of(storage) is None
                                 and not _item_of_parameter(storage, self.function)
                                 and storage not in self.instance_dtypes)
            made = frozenset()
        picked = self.picked_anew(value)
        if picked is not None:  # ``self.obs[idx]`` of an index array this call passes: a copy made there
            storages, made = frozenset((picked,)), frozenset()
        result = value._replace(
            kinds=kinds or UNKNOWN.kinds, grad=grad, graph=graph, device=device, made=made, qual=qual,
            storages=self.storages(storages), kind_from=other_kinds, grad_from=other_grads, called=other_calls,
            why=why if why else ((("kind", Evidence.SUMMARY),) if "tensor" in kinds else ()),
            items=self.inherited_items(kind_from) if value.items is None else tuple(
                (key, self.value(item)) for key, item in value.items),
            facts=facts | self.inherited_fields(kind_from) if value.items is None else facts,
        )
        for index, keys in called:
            made = self.call_value(self.actual(index), frozenset(_call_site(storage) for storage in value.storages))
            for key in keys:  # an item of what it returned (``_, log_prob = policy.act(obs)``)
                made = _item_at(made, key)
            if index not in grad_from:  # cut from the graph in the callee (``m(x).detach()``, under no_grad)
                made = _cut_from_graph(made)
            result = made if result.kinds == UNKNOWN.kinds and not result.storages else join(result, made)
        return result if self.enclosing is None else self.enclosing.value(result)
