"""What the TEN2xx rules that query the model share: when an alias is observable.

The model tags every value an alias-making operation hands out with the operation's id
(``Value.made``) and records an ``alias`` event where it runs. For one such operation, the places
holding its storage with the id are the alias side, those without it the source side. The alias
is observable when a ``write`` event writes one side and the other side is observed afterwards:
a ``read`` event of it later in the flow graph (a later loop iteration counts), or at the write a
holder that outlives the function (a parameter, an attribute of one or of ``self``), or an alias
whose name says it keeps an earlier value. Not a write through a handle that sets all of a
module's parameter from other values (``w = fc.weight.data; w.normal_()``): its initialisation,
what the handle was for. A chain (``t.detach().numpy()``) is one alias, decided
by its outermost operation unless it crosses between torch and numpy.
"""

import ast
from itertools import takewhile
from typing import Iterator, List, NamedTuple, Optional

import libcst as cst

from flake8_tensorcopy import knowledge as k
from flake8_tensorcopy.knowledge.conventions import inplace_named, snapshot_named
from flake8_tensorcopy.fixes import Fix, bare, keep_parentheses, method
from flake8_tensorcopy.model.classes import on_receiver
from flake8_tensorcopy.model.places import inside, place_of, split_items
from flake8_tensorcopy.model.summaries import allocated_in, held_through, parameter_holding, parameter_index
from flake8_tensorcopy.model.transfer import CALLERS_PARAMETERS, GRADIENT, HANDED, ITEM_OF, METADATA, is_gradient
from flake8_tensorcopy.model.values import EMPTY, FIELDS, Value, containers_of, kinds, storages_held
from flake8_tensorcopy.rules.base import Rule, suggestion
from flake8_tensorcopy.scan import descendants

_CROSSING = ("numpy", "from_numpy")  # a chain that crosses libraries is decided by the crossing


class Sharing(NamedTuple):
    alias: object  # the outermost ``alias`` event of the chain
    kind: str  # the deciding operation's kind
    write: object  # the ``write`` event
    written_alias: bool  # the write goes through the alias side
    observed: str  # the place observed
    observation: str  # how: "read on line 9", "outlives the function (a parameter)"


def _side(value, storages: frozenset, made) -> Optional[bool]:
    """Whether ``value`` holds one of ``storages`` as the alias (True), as the source (False), or
    not at all (None). An object whose fields hold both (``tracker.start`` and ``tracker.model``,
    whatever order they come in) counts as holding the alias: a write of the source changes what
    it keeps, a write through the alias is what it keeps the alias for. (Not a container's items:
    those a loop over keys collapses into one are other tensors each.)"""
    return _side_holding(value, storages | containers_of(storages), made)


def _side_holding(value, holding: frozenset, made) -> Optional[bool]:
    """``_side`` given the storages and the containers holding them."""
    if value.storages & holding:  # the container holds an item it does not list
        return made in value.made
    found = [side for side in (_side_holding(item, holding, made) for _, item in value.items or ())
             if side is not None]
    if not found:
        return None
    # a record's fields or a literal's keyed items hold both at once; only a collapsed ``"*"`` item is another tensor each
    keyed = all(key != "*" for key, _ in value.items or ())
    return True in found if keyed or any(fact.startswith(FIELDS) for fact in value.facts) else found[0]


def chains(model) -> List[tuple]:
    """(outermost alias event, deciding kind) for every alias-making chain of the file, worked
    out once per model."""
    found = model.answers.get("chains")
    if found is None:
        found = model.answers["chains"] = list(_chains(model))
    return found


def _chain_of(model) -> dict:
    """The chains by the id of their outermost alias (one chain per id), for the checks that ask
    of one write which chains it went through."""
    found = model.answers.get("chain of")
    if found is None:
        found = model.answers["chain of"] = {event.detail["made"]: (event, kind) for event, kind in chains(model)}
    return found


def _chains(model) -> Iterator[tuple]:
    by_id = {}
    for event in model.events.find("alias"):
        by_id.setdefault(event.detail["made"], event)
    inner = set()
    for made, event in by_id.items():
        inner.update(other for other in event.value.made
                     if other != made and other in by_id and inside(by_id[other].node, event.node))
        iterated = _iterated_alias(model, event, by_id)
        if iterated is not None:  # ``{k: v.detach() for k, v in m.state_dict().items()}``: one snapshot
            inner.add(made)
    for made, event in by_id.items():
        if made in inner:
            continue
        kinds = [by_id[other].detail["operation"] for other in event.value.made
                 if other in by_id and inside(by_id[other].node, event.node)]
        crossing = [kind for kind in _CROSSING if kind in kinds]
        yield event, crossing[0] if crossing else event.detail["operation"]


def _iterated_alias(model, event, by_id) -> Optional[object]:
    """The alias a comprehension iterates whose item ``event`` (in its element) aliases again:
    the comprehension's container is one chain, decided by what it iterates."""
    comprehension = comprehension_of(model, event.node)
    if comprehension is None:
        return None
    for other in event.value.made:
        found = by_id.get(other)
        if found is not None and found is not event and any(
                inside(found.node, generator.iter) for generator in comprehension.generators):
            return found
    return None


def comprehension_of(model, node) -> Optional[ast.AST]:
    """The innermost comprehension whose element ``node`` is part of: the container it builds
    holds the alias, item by item."""
    found = None
    for comprehension in model.comprehensions:
        parts = (comprehension.key, comprehension.value) if type(comprehension) is ast.DictComp else (comprehension.elt,)
        if any(inside(node, part) for part in parts) and (found is None or inside(comprehension, found)):
            found = comprehension
    return found


def alias_place(model, alias) -> Optional[str]:
    """The place first bound to the alias after it is made (``b``, ``d['a']``, the list a
    comprehension builds of it), if any."""
    made = alias.detail["made"]
    whole = comprehension_of(model, alias.node) is not None or alias.detail.get("in_container", False)
    for event in model.events.find("bind"):
        if event.value is None or event.place is None or event.function is not alias.function or id(
                event.node) in comprehension_variables(model):
            continue
        if event.line != alias.line and not model.events.after(alias, event):
            continue
        path = _path_to(event.value, made, whole)
        if path is not None:
            return event.place + path
    return None


def _path_to(value, made, whole: bool) -> Optional[str]:
    """Where in ``value`` the alias ``made`` is: ``""`` for the value itself (or, ``whole``, the
    container whose items it is), ``"['model']"`` for the state dict a checkpoint dict holds,
    ``".weights"`` for a record's field."""
    if made in value.made:
        return ""
    for key, item in value.items or ():
        if made in item.made:
            return "" if whole else _step(value, key)
    for key, item in value.items or ():
        inner = _path_to(item, made, whole) if item.items else None
        if inner is not None:
            return _step(value, key) + inner
    return None


def _step(value, key: str) -> str:
    """How code names the item at ``key``: ``.weights`` of a record's field, else ``[key]``."""
    for fact in value.facts:
        if fact.startswith(FIELDS) and key.isdigit():
            return "." + fact[len(FIELDS):].split("|")[int(key)]
    return f"[{key}]"


def comprehension_variables(model) -> frozenset:
    """The ids of the names comprehensions bind (``v`` in ``{k: v for k, v in ...}``): passing
    through, they keep nothing; the container the comprehension builds does."""
    found = getattr(model, "_comprehension_variables", None)
    if found is None:
        found = model._comprehension_variables = frozenset(
            id(node) for comprehension in model.comprehensions for generator in comprehension.generators
            for node in ast.walk(generator.target))
    return found


def kept_by_its_object(alias, name: Optional[str], write) -> bool:
    """A method's plain store of what its caller passes (``self.shadow = shadow`` in ``__init__``,
    ``self.w = module.weight`` in ``attach``), written through that field in another function
    (the object's ``update()``, its caller's ``frame.pixels -= 1``): the object keeps a reference
    on purpose; an alias its caller made for it is reported at the caller."""
    function = alias.function
    if alias.detail.get("operation") != "assignment" or function.owner is None or not function.receiver_offset:
        return False
    receiver = function.names[0]
    source = alias.place or receiver
    return name is not None and name.startswith(receiver + ".") and write.function is not function \
        and not (source == receiver or source.startswith(receiver + "."))  # (``self.best = self.w``: one object's)


def _through_receiver(alias, write) -> bool:
    """``p.detach().mul_(d)``, ``p.data += d``, ``p.data[0] = d``, ``nn.init.zeros_(p.data)``, ``scale_(p.data, d)`` (an
    alias no place holds, handed straight to a helper that writes it), ``torch.add(p.data, u, out=p.data)``:
    the chain is the write's receiver, the update is the intent."""
    if alias.detail["made"] in write.detail.get("temporaries", ()):
        return True
    node = write.node
    if type(node) is ast.Call and node.args and node.args[0] is alias.node and str(
            write.detail.get("method", "")).startswith("torch."):
        return True  # ``nn.init.zeros_(p.data)``: a torch function writing the chain it is handed
    if type(node) is ast.Call and any(keyword.arg == "out" and keyword.value is alias.node for keyword in node.keywords):
        return True  # ``torch.add(p.data, u, out=p.data)``: the chain is where the call writes
    if type(node) is ast.Call:
        receiver = node.func.value if type(node.func) is ast.Attribute else None
        while _returns_receiver(receiver):  # ``p.data.mul_(d).add_(u)``: in-place calls return their receiver
            receiver = receiver.func.value
        return receiver is alias.node
    return (node.target if type(node) is ast.AugAssign else getattr(node, "value", None)) is alias.node


def _another_parameter(model, alias, event) -> bool:
    """An event (a write, a read) of one named parameter of a module, by its name or through a
    handle of it (``b = m.bias.data; b.zero_()``), and an alias of another (``m.weight.data``):
    two tensors, though the model holds a module's parameters under the module's storages."""
    if alias.place is None or event.place is None:
        return False
    handles = [model.alias_makers[made][2] for made in (event.value.made if event.value is not None else ())
               if made in model.alias_makers]
    places = [place for place in handles or [event.place] if place is not None]  # a handle's source, else its name
    return bool(places) and all(_named_parameters_differ(alias.place, place) for place in places)


def _named_parameters_differ(one: str, other: str) -> bool:
    """``m.weight`` and ``m.bias.data``: two named parameters of one module (also under two
    names of it: ``self.layer.weight`` of the layer a caller handed as ``a``, and ``a.bias``)."""
    one, other = (place[:-len(".data")] if place.endswith(".data") else place for place in (one, other))
    (base, _, name), (other_base, _, other_name) = one.rpartition("."), other.rpartition(".")
    roles = k.role_of("attribute", name), k.role_of("attribute", other_name)
    return bool(base) and bool(other_base) and name != other_name and all("module_parameter" in role for role in roles)


def _returns_receiver(node) -> bool:
    """An in-place method call (``t.mul_(d)``): it returns its receiver."""
    return (type(node) is ast.Call and type(node.func) is ast.Attribute
            and node.func.attr.endswith("_") and not node.func.attr.endswith("__"))


def writes_arguments(function) -> bool:
    """A function that says it writes its arguments: its name (``normalize_``, ``inplace_scale``)
    or an ``inplace`` parameter (the project's conventions)."""
    name = getattr(function.node, "name", "")
    return inplace_named(name.rsplit(".", 1)[-1]) or any(inplace_named(parameter) for parameter in function.names)


def _outliving(function, place: str) -> Optional[str]:
    head = place.split(".", 1)[0].split("[", 1)[0]
    if head not in function.names:
        return None
    if place == head:
        kept = function.kept_by_callers
        index = function.names.index(head)
        # every caller of the file hands over what it no longer holds (``freqs = rotate(freqs)``)
        return "a parameter" if not kept or kept.get(index, True) else None
    return "an attribute" if function.receiver_offset and head == function.names[0] else "an attribute of a parameter"


def sharings(model, alias, kind: str, root_causes: bool = True) -> List[Sharing]:
    """Every (write, observation) of one alias chain, the write first by line; with
    ``root_causes``, not the writes made through another alias that is reported itself."""
    made = alias.detail["made"]
    storages = alias.value.storages
    events = model.events
    name = alias_place(model, alias)
    if name is not None and name == alias.place and _outliving(alias.function, name) is None:
        return []  # ``out = out.view(...)`` of a local: the name now holds the alias, nothing else the source
    if alias.detail.get("fresh_source"):
        return []  # ``torch.clone(g).detach()``: no one but the alias holds the new memory
    if name is not None and name.endswith(".data") and _data_of_itself(model, alias, name[:-len(".data")]):
        return []  # ``p.data = p.float().to(dtype)``: the parameter keeps its own memory, no second holder
    found = []
    indexed = _indexed_containers(model)
    held_by_object = None
    # what a write must reach to be one of the chain's: its memory, as its object holds it too
    for write in _writes_reaching(model, alias, storages | _held_by_its_object(model, alias)):
        if _another_parameter(model, alias, write):
            continue
        if _visited_item_written_before(model, alias, write):
            continue  # ``for k, v in sd.items(): v.mul_(a); out[k] = v``: the next pass writes another item
        if _through_receiver(alias, write) or root_causes and (
                _through_reported(model, write, alias) or _through_reported_argument(model, write, alias)):
            continue
        # a write by a callee of the memory it holds through the alias (``self.store.mul_()`` in ``update``)
        through_alias = made in write.value.made or any(made in way for way in write.detail.get("through") or ())
        if through_alias and kept_by_its_object(alias, name, write):
            continue  # ``self.shadow = shadow`` written through ``self.shadow`` by the object's own use of it
        part = model.view_parts.get(made, EMPTY)
        if part and not through_alias and (_disjoint(part, write.detail.get("part")) or _through_other_parts(
                model, write, alias, part)):
            continue  # ``row = x[0]; x[1] = v`` or ``other = x[1]; other += v``: another part of the base
        keeping = _kept_by_calls(model, alias, write.function) if write.function is not alias.function else []
        arrivals = [alias] if write.function is alias.function else _arrivals(model, made, write.function) + keeping
        # the memory of the alias's chain the write reaches (not another tensor a joined value names)
        reached = EMPTY
        for arrival in arrivals:
            arrived = write.storages & (storages if arrival is alias or arrival in keeping
                                        else _storages_made(arrival.value, made))
            if arrived and events.after_unless(arrival, write, allocated_anew(model, write, arrived)):
                reached |= arrived
                if arrival in keeping:  # what the object was handed, as its methods' reads name it
                    reached |= {storage for storage in storages if type(storage) is tuple and storage[:1] == (HANDED,)}
        if not reached and write.function is alias.function and through_alias and _kept_on_its_object(alias, name):
            # ``if self.avg is None: self.avg = [p.detach() ...] else: a.add_(...)``: on a path its own call
            # cannot take, the alias arrives from an earlier call, through what the object keeps
            for arrival in _arrivals(model, made, write.function):
                arrived = write.storages & _storages_made(arrival.value, made)
                if arrival is not alias and arrived and events.after_unless(
                        arrival, write, allocated_anew(model, write, arrived)):
                    reached |= arrived
        if not reached and _closure_after(alias, write.function):  # the factory made it before the closure runs
            arrived = write.storages & storages
            if arrived and events.entered_unless(write, allocated_anew(model, write, arrived)):
                reached = arrived
        if not reached:
            held_by_object = _held_by_its_object(model, alias, write)
            kept = _kept_for_another_call(model, alias, write, storages | held_by_object, through_alias)
            if kept is not None:
                found.append(Sharing(alias, kind, write, False, *kept))
            continue
        if through_alias and (writes_arguments(write.function) or _keeps_references(alias, write)
                              and not _reads_its_source_after(model, alias, write)
                              or _sets_a_parameter(model, alias, write, name)):
            continue
        observed = None
        holding = reached | containers_of(reached)
        reads = _reads_of(model, write.function)
        for position, read in enumerate(reads):  # (a read in another function runs after no write here)
            if read.value is None:
                continue
            value = read.value._replace(items=None) if id(read.node) in indexed else read.value
            side = _side_holding(value, holding, made)
            if side is None or side == through_alias:
                continue  # it holds none of what the write reached, or only as the side written
            # (a construction between the write and the read keeps the alias anew: ``monitor = Monitor(m)``)
            if not events.after_unless(write, read, [
                    kill for kill in _made_anew(model, alias, read) + keeping if kill.node is not write.node]):
                continue
            if id(read.node) in _overwritten_receivers(model):
                continue  # ``p.copy_(p_fp32)``: the name is written there, its values not read
            if inside(read.node, write.node) and inside(alias.node, write.node):
                continue  # ``torch.add(p.data, u, out=p.data)``: its operands are read before it writes, each run anew
            if read.detail.get("part") == METADATA or through_alias and (
                    _disjoint(part, read.detail.get("part")) or _through_other_parts(model, read, alias, part)):
                continue  # ``x.shape`` reads no value; ``out = x[0]; out[...] = v; x[1]`` (or ``y = x[1]; y``): another part
            if _other_attribute_of_module(model, read, alias):
                continue  # ``w = m.weight.data; w.fill_(1); b = m.bias.data``: ``m`` read for its bias
            if not through_alias and _receiver_of_a_method_not_reading(model, read, alias):
                continue  # ``probe.predict(x)`` reads ``probe.layer``, not the ``probe.start`` it keeps
            if side and _made_again(alias, write, read) \
                    or _allocated_again(model, alias, read) or side and _let_go_before(model, alias, name, write, read) \
                    or side and _not_held_at_the_write(model, alias, write, read):
                continue
            later = " in a later iteration" if read.line < write.line else ""
            if later and through_alias and _another_pass(part, read.detail.get("part")):
                continue  # ``v = x[i]; v += d`` then ``x[i]`` of the next ``i``: another element
            # ``env.reward()`` reads ``self.state`` (named so where ``env`` itself is read there for it)
            by_call = read if read.place is None and read.detail.get("by_call") else next((
                other for other in takewhile(lambda other: other.line == read.line, reads[position + 1:])
                if other.place is None and read.place is not None
                and other.detail.get("by_call", "").split(".")[0] == read.place
                and other.value is not None and _side_holding(other.value, holding, made) is not None), None)
            if by_call is not None:
                observed = (f"{by_call.detail['by_call']}()", f"reads it on line {read.line}{later}")
            else:
                observed = (read.place or "it", f"read on line {read.line}{later}")
            break
        if observed is None and through_alias and write.function is alias.function \
                and _made_before_its_loop(model, alias):  # ``batch = self.buffer; batch.copy_(...); yield batch``
            observed = _collected_from_generator(model, alias)
        if observed is None:
            observed = _held(model, write, through_alias, made, name, alias)
        if observed is None and through_alias:
            observed = _held_through_object(model, write, made, storages, name) or (
                _handed_to_its_object(write, alias) if _kept_on_its_object(alias, name)
                and _mixes_in_what_it_writes(model, write) else None)
        if observed is None and write.function is not alias.function:
            # read by this call before the write only: the next call reads what this one wrote,
            # unless this call replaces what the object keeps after the write
            held_by_object = _held_by_its_object(model, alias, write)
            observed = _kept_for_another_call(model, alias, write, storages | held_by_object, through_alias)
            if observed is not None and any(bind.function is write.function and bind.place == observed[0]
                                            and events.after(write, bind) for bind in events.find("bind")):
                observed = None
        if observed is None and not through_alias and write.function is alias.function:
            observed = _collected_from_generator(model, alias)
        if observed is None and not through_alias and _closure_after(alias, write.function):
            observed = _read_by_a_closure(model, alias, name)
        if observed is not None and through_alias and kind in _SURGERY_KINDS and observed[1].startswith("outlives") \
                and _only_gradients(write.storages & storages):
            observed = None  # ``g = p.grad; g.div_(n)``: a gradient written through a name taken for that (DDP, clipping)
        if observed is not None:
            found.append(Sharing(alias, kind, write, through_alias, *observed))
    # a write by the alias's own class first (``self.snaps`` in ``__init__``, a step in ``train_step``)
    owner = alias.function.owner
    return sorted(found, key=lambda sharing: (owner is not None and sharing.write.function.owner is not owner,
                                              sharing.write.line, sharing.write.node.col_offset))


def _receiver_of_a_method_not_reading(model, read, alias) -> bool:
    """A read of an object of the file only as the receiver of a call of its method
    (``probe.predict(x)``) whose code, and the code of the methods it calls on ``self``, reads
    none of the attributes keeping the alias: the call observes the source, not the alias."""
    if read.value is None or read.place is None:
        return False
    parents = _parents_of(read.function, model)
    attribute = parents.get(id(read.node))
    call = parents.get(id(attribute)) if attribute is not None else None
    if type(attribute) is not ast.Attribute or attribute.value is not read.node or type(call) is not ast.Call \
            or call.func is not attribute:
        return False
    classes = [kind[7:] for kind in read.value.kinds if kind.startswith("object:")]
    if len(classes) != 1 or classes[0] not in model.classes:
        return False
    info = model.classes[classes[0]]
    made = alias.detail["made"]
    keeping = {name for holder in info.lineage(model.classes) for name, value in holder.attributes.items()
               if made in value.made or _storages_made(value, made)}
    if not keeping:
        return False
    if model.method_of(classes[0], attribute.attr) is None or attribute.attr in info.properties:
        return False  # not a method of the file (a torch one, a property): it may read anything
    read_by_call = _attributes_read_by(model, info, attribute.attr)
    return read_by_call is not None and not read_by_call & keeping


def _attributes_read_by(model, info, method_name: str) -> Optional[frozenset]:
    """The attributes of ``self`` a method of the class reads (not only writes through, as
    ``self.handle.copy_(v)``), with the methods it calls on ``self``; None where it hands ``self``
    on whole or reads a property (it may read anything). Worked out once per class and method."""
    key = ("attributes read by", id(info), method_name)
    if key in model.answers:
        return model.answers[key]
    found, pending, seen = set(), [method_name], set()
    while pending and found is not None:
        name = pending.pop()
        if name in seen:
            continue
        seen.add(name)
        method = model.method_of(info.name, name)
        receiver = method.names[0] if method.receiver_offset else None
        parents = _parents_of(method, model)
        for node in ast.walk(method.node):
            if on_receiver(node, receiver):
                if node.attr in info.properties:
                    found = None
                    break
                if not _written_only_here(node, parents):
                    found.add(node.attr)
                if model.method_of(info.name, node.attr) is not None:
                    pending.append(node.attr)  # ``self.helper()``: what it reads counts too
            elif type(node) is ast.Name and node.id == receiver and not (
                    type(parents.get(id(node))) is ast.Attribute and parents[id(node)].value is node):
                found = None  # ``self`` handed on whole
                break
    model.answers[key] = frozenset(found) if found is not None else None
    return model.answers[key]


def _written_only_here(node, parents: dict) -> bool:
    """``self.handle`` used as the receiver of an in-place method (``self.handle.copy_(v)``,
    ``self.handle.clamp_(0, 1)``): written, its old values not read (``copy_`` reads none; a
    clamp or a mask reads them only to write them back)."""
    method = parents.get(id(node))
    call = parents.get(id(method)) if method is not None else None
    return type(method) is ast.Attribute and method.value is node and method.attr.endswith("_") \
        and not method.attr.startswith("_") and type(call) is ast.Call and call.func is method


def _parents_of(function, model) -> dict:
    """Per node id of a function's code, the node holding it (walked once per function)."""
    key = ("parents", id(function))
    parents = model.answers.get(key)
    if parents is None:
        parents = model.answers[key] = {id(child): node for node in ast.walk(function.node)
                                        for child in ast.iter_child_nodes(node)}
    return parents


def _other_attribute_of_module(model, read, alias) -> bool:
    """A module read only to reach another of its attributes (``m`` of ``m.bias`` after a write
    through ``m.weight.data``): a module a caller passes holds its parameters under one symbolic
    memory, but ``m.bias`` is not ``m.weight``."""
    if read.value is None or read.value.kinds != kinds("module") or read.place is None or alias.place is None:
        return False
    key = ("parents", id(read.function))
    parents = model.answers.get(key)
    if parents is None:
        parents = model.answers[key] = {id(child): node for node in ast.walk(read.function.node)
                                        for child in ast.iter_child_nodes(node)}
    parent = parents.get(id(read.node))
    if type(parent) is not ast.Attribute or parent.value is not read.node:
        return False
    reached = f"{read.place}.{parent.attr}"
    return alias.place.startswith(read.place + ".") and not (
        alias.place == reached or alias.place.startswith(reached + ".") or alias.place.startswith(reached + "["))


def _data_of_itself(model, alias, holder: str) -> bool:
    """Whether ``holder.data = v`` hands ``holder`` memory it already held (``v`` an alias of it)."""
    try:
        before = model.value_at(alias.line, holder)
    except (KeyError, TypeError):
        return False
    if before is None or not before.storages or not before.storages <= alias.value.storages:
        return False
    node = alias.function.node  # the rest must be memory this function made (``p.float()``), no one else's
    lines = (getattr(node, "lineno", 1), getattr(node, "end_lineno", float("inf")))
    return all(storage in before.storages or _allocated_within(storage, *lines) for storage in alias.value.storages)


def _let_go_before(model, alias, name: Optional[str], write, read) -> bool:
    """Whether the name read as the alias was bound to something else on every path from the
    alias to the write (``weight = self.weight; if coft: weight = project(weight);
    self.weight.copy_(weight)``): where the write runs, the name no longer holds the alias."""
    if name is None or read.place is None or read.function is not alias.function or \
            read.place.split(".", 1)[0].split("[", 1)[0] != name:  # ``weight`` or ``weight.T``
        return False
    made = alias.detail["made"]
    rebinds = [bind for bind in _binds_and_calls(model, alias.function) if bind.kind == "bind" and bind.place == name
               and bind.line != alias.line and (bind.value is None or made not in bind.value.made)]
    return bool(rebinds) and not model.events.after_unless(alias, write, rebinds)


def _not_held_at_the_write(model, alias, write, read) -> bool:
    """A local name read as the alias that did not hold it where the write ran (``if not
    self.training: var = self.running_var`` ... ``if self.training: self.running_var.mul_(m)``:
    on the path of the write the name held another tensor), and no binding gave it the alias
    between the write and the read."""
    place = read.place
    if place is None or not place.isidentifier() or read.function is not write.function \
            or place not in write.function.bound_names or read.value is None or read.value.items is not None \
            or place == write.place or place in write.detail.get("holders", ()):
        return False  # (a name the function does not bind, a closure's, is no holder its state tracks)
    made = alias.detail["made"]
    events = model.events
    return not any(bind.kind == "bind" and bind.place == place and bind.value is not None and made in bind.value.made
                   and events.after(write, bind) and events.after(bind, read)
                   for bind in _binds_and_calls(model, write.function))


def _made_anew(model, alias, read) -> list:
    """The bindings of the name read that end what it held: a run of the alias's own statement
    (``denom = exp_avg_sq`` in a loop: after it, the name holds the alias made there, after any
    earlier write), or a binding to a value that is not that alias."""
    made = alias.detail["made"]
    if read.place is None and read.function is alias.function:
        return []
    if read.function is not alias.function:
        # the call that brings the alias here again (``logs = {}; log_weights(model, logs)`` each
        # iteration): after it, the caller's name holds the alias made by that run; what the caller
        # computes from a run of the alias's own function (``k.transpose(-1, -2)`` of ``k, v =
        # cache.update(...)``) reads the one that run made
        # (not a call whose result the caller binds to another name: ``after = snapshot(net)``
        # leaves what ``before`` holds as it was)
        arrivals = _arrivals(model, made, read.function)
        bound_elsewhere = {id(event.detail.get("expression")) for event in arrivals if event.kind == "bind"
                           and read.place is not None and not _same_holder(event.place, read.place)}
        # (a position of a list a call appends to, ``history[0]``, may still hold an earlier run's
        # alias; ``history[-1]`` is the last one appended, and so is any position of a list the
        # function empties or fills from the front)
        by_position = read.place is not None and any(key[:1] not in ("'", '"') and key != "-1"
                                                     for key in split_items(read.place)[1]) \
            and not any(_renews_positions(model, event) for event in arrivals)
        return [event for event in arrivals
                if event.kind in ("bind", "call") and type(event.node) is ast.Call and event.line != read.line
                and id(event.node) not in bound_elsewhere and not by_position
                and (read.place is not None and (event.kind == "call" or _same_holder(event.place, read.place))
                     or event.detail.get("callee") == alias.function.name)]
    return [bind for bind in _binds_and_calls(model, alias.function) if bind.kind == "bind" and bind.place == read.place
            and (bind.line == alias.line or bind.value is None or made not in bind.value.made)]


def _renews_positions(model, arrival) -> bool:
    """Whether the function a call runs empties a list or fills it from the front
    (``history.clear()``, ``history.insert(0, a)``): after it, no position holds what an earlier
    run appended."""
    calls = model.events.find("call")
    callee = arrival.detail.get("callee") if arrival.kind == "call" else next(
        (call.detail.get("callee") for call in calls if call.node is arrival.node), None)
    function = model.functions_by_name.get(callee or "")
    return function is not None and any(
        event.function is function and (event.detail.get("callee") if event.kind == "call" else event.detail.get(
            "method")) in k.CONTAINER_RENEWING_FRONT for event in calls + model.events.find("accumulate"))


def _same_holder(bound: Optional[str], read: str) -> bool:
    """Whether a binding reaches what a name read holds: the same variable, or an attribute or
    item of it (``s.buf`` bound by ``s.scale()`` changes nothing ``x`` holds)."""
    return bound is None or split_items(bound)[0].split(".")[0] == split_items(read)[0].split(".")[0]


def _through_other_parts(model, event, alias, part: frozenset) -> bool:
    """A write (or a read) through views of known parts of the base, none of them in ``part`` (a
    second name for such a view, ``d[k] = row``, is the same part; views both sides were made
    through, ``x.reshape(...)`` before the rows, say nothing)."""
    parts = [model.view_parts.get(made) for made in event.value.made - alias.value.made if made[2] != "assignment"]
    return bool(parts) and all(other is not None and _disjoint(part, other) for other in parts)


def _disjoint(part: frozenset, other) -> bool:
    """Two known sets of positions along one dimension with none in common: disjoint memory
    (``x[0]`` and ``x[:, 4]`` are parts along different dimensions: they overlap; ``x[0]`` and
    ``x[i]`` for ``i`` in ``range(1, n)``, ``">=1"``, do not)."""
    if not part or not other or _dimensions(part) != _dimensions(other) or len(_dimensions(part)) != 1:
        return False
    split = {position.rpartition("@")[2] for position in part | other}
    if len(split) == 2 and {token[:2] for token in split} == {"<$", ">="} \
            and len({token.lstrip("<>=") for token in split}) == 1:
        return True  # ``x[..., :k]`` and ``x[..., k:]``: the two sides of one split
    mine, theirs = _positions_of(part), _positions_of(other)
    if mine is None or theirs is None:
        return False
    (fixed, least), (other_fixed, other_least) = mine, theirs
    if least is not None and other_least is not None:
        return False
    return not (fixed & other_fixed or least is not None and any(position >= least for position in other_fixed)
                or other_least is not None and any(position >= other_least for position in fixed))


def _another_pass(part: frozenset, other) -> bool:
    """Whether two parts are indexed by one range loop's variable (``x[i]``): read in a later
    pass than the write, they are two elements."""
    return bool(other) and any(position.startswith("~") or "@~" in position for position in part & other)


def _dimensions(part: frozenset) -> frozenset:
    """The dimensions a part's positions lie along (``"1@4"``: dimension 1; ``"4"``: the first)."""
    return frozenset(position.partition("@")[0] if "@" in position else "0" for position in part)


def _positions_of(part: frozenset):
    """(the positions, the least of an open range or None) of a part, or None where one of its
    positions is no number (``METADATA``)."""
    fixed, least = set(), None
    for position in part:
        number = position.partition("@")[2] if "@" in position else position
        if number.startswith("~"):  # which loop variable indexes it: see ``_another_pass``
            continue
        if "$" in number:  # a side of a split at a name: see ``_disjoint``
            return None
        if number.startswith(">=") and number[2:].isdigit():
            least = int(number[2:]) if least is None else min(least, int(number[2:]))
        elif number.isdigit():
            fixed.add(int(number))
        else:
            return None
    return frozenset(fixed), least


def _through_reported(model, write, alias) -> bool:
    """A call whose helper writes its parameter only through aliases it made (``through``, one
    set per write) that a rule reports there: fixing those aliases removes the write, so it is
    their finding's, not one more for this chain. (A local write's ``made`` joins every path's
    aliases, so it cannot say which one it went through.)"""
    ways = [made - alias.value.made for made in write.detail.get("through") or ()]
    if not ways or not all(ways):
        return False
    chain_of = _chain_of(model)
    reported = {made for made in frozenset().union(*ways) if made in chain_of
                and _built_on(alias, chain_of[made][0], write) and _reported(model, *chain_of[made])}
    return all(way & reported for way in ways)


def _built_on(alias, other, write) -> bool:
    """Whether the alias ``other`` is made from ``alias`` for ``write``: ``alias`` made before the
    writing call, or within ``other`` (``x[0]`` of ``x[0].numpy()``), or ``other`` made by the
    callee of what it was handed (``copy.copy(t)`` of the caller's ``t.detach()``); not another
    argument's alias beside it (``normalize(w.detach(), b.detach())``: each writes its own)."""
    return not inside(alias.node, write.node) or inside(alias.node, other.node) or other.function is not alias.function


def _through_reported_argument(model, write, alias) -> bool:
    """A call that writes through an alias one of its arguments made on the spot
    (``normalize_(crop.numpy())``) that a rule reports there: fixing that alias removes the
    write, so it is that finding's, not one more for this chain."""
    spot = write.value.made - alias.value.made
    if type(write.node) is not ast.Call or not spot:
        return False
    chain_of = _chain_of(model)
    return any(inside(event.node, write.node) and _built_on(alias, event, write) and _reported(model, event, kind)
               for event, kind in (chain_of[made] for made in spot if made in chain_of))


def _reported(model, alias, kind: str) -> bool:
    """Whether the rule that claims ``kind`` reports the alias: one of its sharings is a hazard
    by that rule's own judgement (a partial view read as a window onto its base is not);
    worked out once per alias."""
    from flake8_tensorcopy.rules import ALL_RULES  # the registry imports the rules, which import this module

    key = ("reported", alias.detail["made"])
    if key not in model.answers:
        rules = [rule for rule in ALL_RULES if kind in getattr(rule, "kinds", ())]
        model.answers[key] = any(rule.hazard(model, sharing) for sharing in sharings(model, alias, kind, root_causes=False)
                                 for rule in rules)
    return model.answers[key]


def _made_again(alias, write, read) -> bool:
    """The alias is made anew between the write and the read on every path (earlier in the
    read's block, not followed by the write there): the read sees the new one, not the one
    the write changed (``x.add_(1); cur = x.detach(); print(cur)`` in a loop)."""
    return (alias.function is read.function and alias.block == read.block and alias.order < read.order
            and not (write.block == alias.block and alias.order < write.order < read.order))


def _keeps_references(alias, write) -> bool:
    """A class writing, in another method, through the aliases one of its methods made: it
    keeps them as references on purpose (``self.targets[k].lerp_(p, rate)``); not one a method
    hands back and a caller writes (``batch = self.to_device(batch); batch["x"].mul_(s)``)."""
    owner = alias.function.owner
    return owner is not None and write.function is not alias.function and write.function.owner is owner \
        and any(alias.detail["made"] in value.made or _storages_made(value, alias.detail["made"])
                for value in owner.attributes.values())


def _reads_its_source_after(model, alias, write) -> bool:
    """Whether the method writing through a kept alias then reads, further on in the same
    straight run of code and as an operand of a write to it, the memory the alias was made of
    under another name (``s.mul_(d).add_(p, alpha=1 - d)`` with ``s`` kept as ``p.detach()``): it
    mixes the two as different tensors, so the kept alias is no reference it meant to write
    through (a read that only observes the result, a logging norm, says nothing). Not a read in
    the next pass of a loop (another item there), nor memory not known to be one: the
    parameters of two modules callers pass in may be two models. The write's own operand counts
    too (``t.lerp_(p, tau)``, ``t.copy_(p)`` with ``t`` kept as ``p.detach()``): an update of the
    alias from its own source: the two are one tensor, so the update mixes it with itself."""
    made = alias.detail["made"]
    operands = _operands(write.node)
    for read in model.events.of_function(write.function):
        if read.kind != "read" or read.block != write.block or read.value is None \
                or made in read.value.made or read.value.items:
            continue
        operand = id(read.node) in operands
        if read.order < write.order and not operand:
            continue
        if read.value.storages & write.storages - {CALLERS_PARAMETERS} and (operand or _feeds_a_write(model, read, write)):
            return True
    return False


def _operands(node) -> set:
    """The ids of the nodes a write takes as they are (``p`` of ``t.lerp_(p, w)``, of ``t += p``),
    through spellings of the same values (``p.detach()``, ``p.data``, ``p.clone()``)."""
    if type(node) is ast.Call:
        operands = list(node.args) + [keyword.value for keyword in node.keywords]
    elif type(node) is ast.AugAssign:
        operands = [node.value]
    else:
        return set()
    found = set()
    for operand in operands:
        while True:
            found.add(id(operand))
            if type(operand) is ast.Call and type(operand.func) is ast.Attribute and not operand.args \
                    and not operand.keywords and operand.func.attr in ("detach", "clone", "contiguous"):
                operand = operand.func.value
            elif type(operand) is ast.Attribute and operand.attr == "data":
                operand = operand.value
            else:
                break
    return found


def _sets_a_parameter(model, alias, write, name: Optional[str]) -> bool:
    """Whether ``write`` (re)initialises a parameter (a leaf requiring grad, held by a module or
    handed in) through the handle the alias is: it sets every element from values not read from
    it (``w = self.fc.weight.data; w.normal_(0, 0.02)``, ``nn.init.zeros_(b)``), or follows such an
    overwrite through the same handle, and the handle is let go after. Not ``t.copy_(tau * t + (1 -
    tau) * p)`` (it mixes in what it held), nor ``mask.bernoulli_(p)`` read after (DropConnect)."""
    if name is not None and _after_an_overwrite(model, alias, write, name):
        return True  # ``w.normal_(); w.mul_(gain)``, ``w.zero_(); w[i, i, k, k] = 1``: values it just set
    return _overwrites_a_parameter(model, alias, write, name)


def _after_an_overwrite(model, alias, write, name: str) -> bool:
    """Whether every path from the handle to ``write`` (a write through it) first runs a write
    that sets the whole parameter through the same handle: what ``write`` reads or changes then
    is what the function itself set (a rescale, a clamp, the padding row, the centre taps)."""
    made = alias.detail["made"]
    if write.function is not alias.function or made not in write.value.made:
        return False
    firsts = [other for other in model.events.of_function(write.function) if other.kind == "write"
              and other is not write and other.value is not None and made in other.value.made
              and _overwrites_a_parameter(model, alias, other, name)]
    return bool(firsts) and not model.events.after_unless(alias, write, firsts) and _let_go_after(model, alias, write)


def _overwrites_a_parameter(model, alias, write, name: Optional[str]) -> bool:
    """Whether ``write``, made on the handle ``name`` itself, sets all of a parameter from values
    that are not read from it (role ``overwrites``), the parameter not one this function made, and
    the handle is let go after it, unless a ``torch.nn.init`` function set it."""
    method = write.detail.get("method") or ""
    where = "function" if method.startswith("torch.") else "method"
    if name is None or write.place != name or "overwrites" not in k.role_of(where, method):
        return False
    # what it writes from: a method's arguments, a function's after the tensor it writes
    operands = list(write.node.args[where == "function":]) + [keyword.value for keyword in write.node.keywords]
    operand_nodes = {id(node) for operand in operands for node in ast.walk(operand)}
    if any(read.kind == "read" and id(read.node) in operand_nodes and read.value is not None
           and storages_held(read.value) & write.storages for read in model.events.of_function(write.function)):
        return False
    if source_local(model, alias):
        return False  # a tensor this function made itself (``p = nn.Parameter(...)``): no module's parameter yet
    source = model.alias_makers[alias.detail["made"]][2]
    try:
        held = model.value_at(alias.line, source) if source else None
    except (KeyError, TypeError, SyntaxError):  # no state at that line, or a place no expression spells
        return False
    if held is None:
        return False
    # ``torch.nn.init`` exists to set a parameter's first values, whatever else is known of the
    # tensor (``self.weight`` of a base class from another package): what follows reads what it
    # set (``nn.init.kaiming_uniform_(w); self.quantize_(w)``)
    # (not a tensor known to hold data, no grad: ``noise = x.detach(); nn.init.normal_(noise)``
    # overwrites the caller's batch, no parameter)
    if method.startswith("torch.nn.init.") and not (held.is_tensor and not held.grad):
        return not _mixed_with_its_source(model, alias, write)
    return held.is_tensor and held.grad and not held.graph and _let_go_after(model, alias, write)


def _mixed_with_its_source(model, alias, write) -> bool:
    """Whether, after ``write``, one arithmetic expression combines the handle with the memory it
    was made of under another name (``noise = w.detach(); nn.init.normal_(noise); w + noise``):
    the handle was meant as a separate tensor, not as the parameter it sets (a statement that
    only prints or compares both says nothing)."""
    made = alias.detail["made"]
    later = [event for event in model.events.of_function(write.function) if event.kind == "read"
             and event.value is not None and model.events.after(write, event)]
    handles = [event.node for event in later if made in event.value.made]
    sources = [event.node for event in later if made not in event.value.made and event.value.is_tensor
               and storages_held(event.value) & write.storages and not _another_parameter(model, alias, event)]
    if not handles or not sources:
        return False
    for node in ast.walk(write.function.node):
        if type(node) is ast.BinOp:
            inner = {id(child) for child in ast.walk(node)}
            if any(id(handle) in inner for handle in handles) and any(id(source) in inner for source in sources):
                return True
    return False


def _let_go_after(model, alias, write) -> bool:
    """Whether, after ``write``, the function uses the handle only as the receiver or an operand
    of further writes through it, and reads nothing of the memory it wrote as a value: set, the
    parameter is left alone (``w.normal_(); w[pad].zero_()``). A handle read afterwards
    (``mask.bernoulli_(p); w * mask``) was meant as a separate tensor: the detach-copies bug."""
    made = alias.detail["made"]
    events = model.events.of_function(write.function)
    writes = [event for event in events if event.kind == "write" and event.value is not None
              and made in event.value.made]
    for event in events:
        if event.kind in ("alias", "write", "bind") or event.value is None or inside(event.node, alias.node):
            continue
        if not (made in event.value.made or event.kind == "read" and event.value.is_tensor
                and storages_held(event.value) & write.storages):  # not ``conv.out_channels`` of the module
            continue
        if any(inside(event.node, other.node) for other in writes) or _another_parameter(model, alias, event):
            continue  # ``b = m.bias.data`` after ``w = m.weight.data; w.fill_(1)``: another tensor
        if event.kind == "read" and event.detail.get("part") == METADATA:
            continue  # ``w.shape``, ``fc.in_features``-like reads of sizes
        if model.events.after(write, event):
            return False
    return True


def _feeds_a_write(model, read, write) -> bool:
    """Whether ``read`` is an operand of a write, from ``write`` on, to the memory ``write``
    writes (``add_(p, ...)`` after ``mul_``): mixing the two, not observing the result."""
    for other in model.events.of_function(write.function):
        if other.kind != "write" or other.order < write.order or type(other.node) is not ast.Call \
                or other.value is None or not other.value.storages & write.storages:
            continue
        operands = list(other.node.args) + [keyword.value for keyword in other.node.keywords]
        if any(node is read.node for operand in operands for node in ast.walk(operand)):
            return True
    return False


def _storages_made(value, made) -> frozenset:
    """The storages ``value`` (or an item of it) holds as the alias ``made``."""
    found = value.storages if made in value.made else frozenset()
    for _, item in value.items or ():
        found |= _storages_made(item, made)
    return found


def _visited_item_written_before(model, alias, write) -> bool:
    """A write, in a ``for`` loop's pass, of the item the pass visits, before the alias of it is
    taken in the same pass (``v.mul_(a); out[k] = v``): the items of a container are one memory
    to the model, but the next pass's write is of the next item, not of the one kept."""
    if write.function is not alias.function or write.block != alias.block or write.order > alias.order:
        return False
    loop = model.events.innermost_loop(alias)
    if not loop or not write.storages or not all(type(storage) is tuple and storage[:1] == ("item",)
                                                 for storage in write.storages):
        return False
    return any(inside(alias.node, node) and any(
        type(target) is ast.Name and target.id in (write.place, alias.place) for target in ast.walk(node.target))
        for node in _for_loops(model, alias.function))


def _for_loops(model, function) -> list:
    """The ``for`` loops of a function, found once per model."""
    key = ("for loops", id(function))
    if key not in model.answers:
        model.answers[key] = [node for node in descendants(function.node) if type(node) in (ast.For, ast.AsyncFor)]
    return model.answers[key]


def _closure_after(alias, function) -> bool:
    """Whether ``function`` is a closure defined in the alias's function after the alias was
    made (``initial = copy.copy(state)``, then ``def step(): state.add_(dx)``): at each call it
    finds the alias already made, under the names it captures."""
    return function.parent is alias.function and function.node.lineno > alias.line


def _read_by_a_closure(model, alias, name: Optional[str]) -> Optional[tuple]:
    """The alias kept under a name the factory's closures capture, read by one of them
    (``reset()`` reading ``initial`` that ``step()`` changed through ``state``): the closures
    outlive the factory and run in any order."""
    if name is None or not name.isidentifier() or _rebound_in(alias.function, name, alias.line):
        return None
    for read in model.events.find("read"):
        if read.place == name and read.function.parent is alias.function and read.function is not alias.function \
                and read.value is not None and storages_held(read.value) & alias.value.storages:
            reader = f"{read.function.node.name}()" if hasattr(read.function.node, "name") else "a lambda"
            return name, f"is read by {reader} on line {read.line} (the closures share it)"
    return None


def _rebound_in(function, name: str, line: int) -> bool:
    """Whether ``function`` itself binds ``name`` again after ``line`` on every path (a statement
    of its own body, not in a branch or a nested function): its closures read that last binding."""
    return any(type(statement) in (ast.Assign, ast.AnnAssign) and statement.lineno > line and any(
        type(node) is ast.Name and node.id == name and type(node.ctx) is ast.Store
        for target in getattr(statement, "targets", [getattr(statement, "target", None)]) for node in ast.walk(target))
        for statement in function.node.body)


def _kept_on_its_object(alias, name: Optional[str]) -> bool:
    """An alias a method binds on its own object (``self.avg = [p.detach() ...]``): kept for the
    object's later calls."""
    receiver = _receiver(alias.function)
    return receiver is not None and bool(name) and name.startswith(receiver + ".")


def _arrivals(model, made, function) -> list:
    """Where an alias made in another function reaches ``function``: its events whose value
    holds it (``b, _ = snap(w)``: the call of the helper that returns it)."""
    key = ("arrivals", id(function))
    if key not in model.answers:
        by_alias = model.answers[key] = {}
        for event in model.events.of_function(function):
            if event.value is not None:
                for arrived in _aliases_holding_memory(event.value):
                    by_alias.setdefault(arrived, []).append(event)
    return model.answers[key].get(made, [])


def _writes_reaching(model, alias, memory: frozenset) -> List:
    """The writes, in the order recorded, of ``memory`` (what the alias is of, as its object
    holds it too) or, in another function, of the memory the alias arrives as there: the only
    writes that can be of its chain."""
    writes, by_memory, arrived_in = _write_index(model)
    made = alias.detail["made"]
    positions = {position for storage in memory for position in by_memory.get(storage, ())}
    for function in arrived_in.get(made, ()):
        if function is not alias.function:
            positions.update(position for storage in _arrived_memory(model, made, function)
                             for position in by_memory.get(storage, ()) if writes[position].function is function)
    return [writes[position] for position in sorted(positions)]


def _write_index(model) -> tuple:
    """(the writes, the positions of those of each storage, the functions each alias arrives in),
    worked out once per model."""
    if "write index" not in model.answers:
        writes = model.events.find("write")
        by_memory = {}
        for position, write in enumerate(writes):
            for storage in write.storages:
                by_memory.setdefault(storage, []).append(position)
        arrived_in = {}
        for event in model.events.events:
            if event.value is not None:
                for made in _aliases_holding_memory(event.value):
                    functions = arrived_in.setdefault(made, [])
                    if event.function not in functions:
                        functions.append(event.function)
        model.answers["write index"] = writes, by_memory, arrived_in
    return model.answers["write index"]


def _overwritten_receivers(model) -> set:
    """The ids of the receivers of in-place methods that replace every value without reading
    one (``dst.copy_(src)``, ``buf.zero_()``), worked out once per model."""
    if "overwritten receivers" not in model.answers:
        model.answers["overwritten receivers"] = {
            id(write.node.func.value) for write in model.events.find("write")
            if type(write.node) is ast.Call and type(write.node.func) is ast.Attribute
            and write.node.func.attr in k.OVERWRITING_METHODS}
    return model.answers["overwritten receivers"]


def _reads_of(model, function) -> List:
    """The reads of one function, in the order recorded."""
    key = ("reads", id(function))
    if key not in model.answers:
        model.answers[key] = [event for event in model.events.of_function(function) if event.kind == "read"]
    return model.answers[key]


def _arrived_memory(model, made, function) -> frozenset:
    """The memory the alias ``made`` arrives as in ``function``, by all its arrivals there."""
    key = ("arrived memory", made, id(function))
    if key not in model.answers:
        model.answers[key] = frozenset().union(*(_storages_made(arrival.value, made)
                                                 for arrival in _arrivals(model, made, function)))
    return model.answers[key]


def _aliases_holding_memory(value) -> set:
    """The aliases ``value`` (or an item of it) holds some memory as: those ``_storages_made``
    finds storages of."""
    found = set(value.made) if value.storages else set()
    for _, item in value.items or ():
        found |= _aliases_holding_memory(item)
    return found


def _kept_by_calls(model, alias, function) -> list:
    """Where an alias a method keeps on its object (``self.reference = {n: p.detach() ...}`` in
    ``__init__``) reaches ``function``: its calls of that method (the construction), after which the
    object holds it."""
    key = ("kept by calls", alias.detail["made"], id(function))
    if key not in model.answers:
        kept = alias.function.owner is not None and alias.function.receiver_offset and _kept_on_object(model, alias)
        model.answers[key] = [call for call in model.events.of_function(function) if call.kind == "call"
                              and call.detail.get("callee") == alias.function.name] if kept else []
    return model.answers[key]


def _indexed_containers(model) -> set:
    """The ids of the containers read to take one item (``out["a"]``, ``batch.targets``): not a
    read of the others."""
    if "indexed" not in model.answers:
        model.answers["indexed"] = {id(event.node.value) for event in model.events.find("read")
                                    if type(event.node) is ast.Subscript or event.detail.get("field")}
    return model.answers["indexed"]


def _outlives_its_call(write) -> bool:
    """Whether what ``write`` writes outlives the call that writes it: it is held by a
    parameter or an attribute path (``self.w``), or it is what a helper was handed and wrote
    (a call's write, no place of its own), or memory the call did not make (``for p in
    self.model.parameters(): p.add_(d)``); a tensor made inside the call (``eq_k += small_k``
    before ``return eq_k``) is new at every call."""
    places = (write.place,) + tuple(write.detail.get("holders", ()))
    held = any(place is not None and (_outliving(write.function, place) is not None or "." in place)
               for place in places)
    handed = type(write.node) is ast.Call and write.place is None and not _made_in_its_call(write, all)
    return held or handed or _made_before_its_call(write)


def _made_before_its_call(write) -> bool:
    """Whether all that ``write`` writes was made before the call that writes it: no allocation
    of its function (nor of a function it called, which is new at each call too)."""
    return bool(write.storages) and not _made_in_its_call(write, any)


def _made_in_its_call(write, quantifier) -> bool:
    """Whether ``quantifier`` (any, all) of what ``write`` writes is allocated by the call of its
    function (``torch.zeros(n).normal_()`` writes a tensor that call made)."""
    node = write.function.node
    first, last = getattr(node, "lineno", 1), getattr(node, "end_lineno", float("inf"))  # a module has none
    return bool(write.storages) and quantifier(
        _allocated_within(storage, first, last) or type(storage) is tuple and storage[:1] == ("call",)
        for storage in write.storages)


def _held_by_its_object(model, alias, write=None) -> frozenset:
    """The memory the alias is of as the attributes of its method's class hold it (the items
    with its id), which is how the class's other methods see it: a parameter of ``__init__``
    kept on ``self`` (``self.w = w``) is the object's own from then on. Where the file builds
    the object, that memory as each instance holds it (``m.fc`` of ``m = Head()``, whose
    ``__init__`` kept ``self.anchor = self.fc.weight.data``)."""
    owner = alias.function.owner
    if owner is None or not alias.function.receiver_offset:
        return EMPTY
    key = ("held by its object", alias.detail["made"], id(alias.function))
    if key not in model.answers:
        model.answers[key] = _held_by_its_class(model, alias, owner)
    held, initializer, allocating, built = model.answers[key]
    if not allocating:
        return held
    if write is not None and alias.function is not initializer:
        # an instance holds the alias only once its method made it: a call of that method on the
        # instance before the write (``m.snapshot()`` after the last step keeps nothing stale)
        calls = [call for call in model.events.find("call") if call.detail.get("callee") == alias.function.name
                 and model.events.after(call, write)]
        built = {site for site in built if any(
            site in getattr(next(iter(call.detail.get("arguments") or ()), None), "storages", ()) for call in calls)}
    return held | {("attribute", site, name) for site in built for name in allocating}


def _held_by_its_class(model, alias, owner) -> tuple:
    """``_held_by_its_object``'s part that no write changes: the memory the class's attributes hold
    of the alias, its ``__init__``, the attributes allocating it, and where the file builds the class."""
    held = frozenset().union(*(_storages_made(value, alias.detail["made"]) for value in owner.attributes.values()))
    # an attribute two methods store joins what each was handed: only the alias's method's is its memory
    held = frozenset(storage for storage in held if not (
        type(storage) is tuple and storage[:1] == (HANDED,) and storage[2] != alias.function.name))
    initializer = model.method_of(owner.name, "__init__")
    first, last = owner.node.lineno, owner.node.end_lineno
    kept_as = [attribute for attribute, value in owner.attributes.items() if alias.detail["made"] in value.made] or [None]
    allocating = frozenset({owner.allocating_attribute(storage, attribute) for storage in held for attribute in kept_as
                            if _allocated_within(storage, first, last)} - {None}) if initializer is not None else EMPTY
    built = frozenset((call.node.lineno, call.node.col_offset) for call in model.events.find("call")
                      if allocating and call.detail.get("callee") == initializer.name and type(call.node) is ast.Call)
    return held, initializer, allocating, built


def _kept_for_another_call(model, alias, write, held: frozenset, through_alias: bool) -> Optional[tuple]:
    """The alias kept on its object, written by another call (another method, or a method that
    runs again after it read it): only a write of what outlives that call (a tensor a call
    makes anew is not what an earlier call kept, unless the method that kept it ran on it since:
    ``model = nn.Linear(...); cb.on_start(model); opt.step()``)."""
    if through_alias or not write.storages & held or _constructs_first(alias, write) \
            or not _outlives_its_call(write):
        return None
    allocations = allocated_anew(model, write, write.storages & held)
    keeping = [call for call in model.events.find("call") if call.function is write.function
               and call.detail.get("callee") == alias.function.name]
    if not model.events.entered_unless(write, allocations) and not any(
            model.events.after_unless(call, write, allocations) for call in keeping):
        return None
    kept = _kept_on_object(model, alias)
    if kept is None or kept[0] == f"{write.place}.data" or _given_its_own_memory(model, alias, kept[0]):
        return None  # ``self.a.data`` is ``self.a``
    return kept


def _given_its_own_memory(model, alias, place: str) -> bool:
    """Whether ``place`` is ``self.<a>.data`` and the alias's memory came from ``self.<a>`` itself
    (``w = self.fc.weight; self.fc.weight.data = w.to(dtype)``): a tensor given its own memory
    back, no second object."""
    if not place.endswith(".data"):
        return False
    holder = place[:-len(".data")]
    chain = alias.value.made | {alias.detail["made"]}
    return any(other.function is alias.function and other.place == holder and other.detail["made"] in chain
               for other in model.events.find("alias"))


def _kept_on_object(model, alias) -> Optional[tuple]:
    """An alias a method kept on ``self`` (an attribute holding it, or items with its id), seen
    by a write of its source in another function (another method, a training loop given the
    same model); not where a method of the class writes through what it keeps: it keeps
    references on purpose."""
    owner = alias.function.owner
    if owner is None or not alias.function.receiver_offset:
        return None
    made = alias.detail["made"]
    if made in _written_through_by_their_class(model, owner):
        return None
    receiver = alias.function.names[0]
    for attribute, value in sorted(owner.attributes.items()):
        if _storages_made(value, made):
            return f"{receiver}.{attribute}", "outlives the function (an attribute)"
    return None


def _written_through_by_their_class(model, owner) -> frozenset:
    """The aliases the methods of ``owner`` write through, worked out once per class."""
    key = ("written through by the class", id(owner))
    if key not in model.answers:
        model.answers[key] = frozenset().union(*(write.value.made for write in model.events.find("write")
                                                 if write.function.owner is owner))
    return model.answers[key]


_SURGERY_KINDS = frozenset(("assignment", "handed", "detach", "view", "partial_view"))


def _only_gradients(storages: frozenset) -> bool:
    """Whether every one of ``storages`` is a tensor's gradient (``p.grad``, kept or dropped)."""
    return bool(storages) and all(
        is_gradient(storage[1] if type(storage) is tuple and storage[:1] == ("dropped",) else storage)
        for storage in storages)


def _held_through_object(model, write, made, alias_storages: frozenset, name: Optional[str]) -> Optional[tuple]:
    """The unwritten side kept on an object of the file's classes that the function was given
    (``volume.voxels`` of a parameter ``volume``: its caller still holds it)."""
    try:
        state = model.state_before(write.line)
    except (KeyError, TypeError):
        return None
    function = write.function
    for storage in sorted(write.storages & alias_storages, key=str):  # an attribute of a parameter the model knows nothing of
        if type(storage) is tuple and len(storage) == 3 and storage[0] == "attribute":
            index = parameter_index(storage[1], function.name)
            if index is not None and index >= function.receiver_offset and storage[2] == GRADIENT:
                return function.names[index], "outlives the function (a parameter: the gradient of its tensors)"
            if index is not None and index >= function.receiver_offset:
                return f"{function.names[index]}.{storage[2]}", "outlives the function (an attribute of a parameter)"
    for place in function.names[function.receiver_offset:]:
        value = state.get(place)
        for kind in sorted(value.kinds if value is not None and type(value) is not frozenset else ()):
            if not kind.startswith("object:"):
                continue
            owner = model.classes.get(kind[7:])
            for attribute, held in sorted(owner.attributes.items() if owner is not None else ()):
                if _side(held, write.storages, made) is False and f"{place}.{attribute}" != name:
                    return f"{place}.{attribute}", "outlives the function (an attribute of a parameter)"
    return None


def _allocated_again(model, alias, read) -> bool:
    """A read of a new value made earlier in the alias's block than the alias (a temporary made
    at the same site in the next iteration, ``p.double()`` before ``.numpy()``, or a name bound
    anew there): not the memory an earlier iteration's write changed."""
    return (read.function is alias.function and read.block == alias.block and read.order < alias.order
            and (read.value.fresh or _bound_anew_before(model, read, read.value.storages & alias.value.storages)))


def allocated_anew(model, write, storages: frozenset) -> list:
    """Where the memory ``write`` writes is made anew: its name (any name, for a write of a chain
    with none) bound to a new allocation or to something else (``buf = None``), or a call of its
    own statement returning new memory (``X = f(X).mul_(s)``; not the tensors a new container
    holds: ``mark(dict(mask=x))``), or, where the written name holds
    the newest object of an allocation (``out = model(ids); logits = out[:, -1]``, then
    ``logits[:, 0] = v``), the allocation itself. A path from an alias to the write through one
    of them writes new memory, never the one the alias holds (recency: only a site's newest
    object is its own; ``buf = torch.zeros(n); buf[0] = 1; out.append(buf.view(...))`` in a loop)."""
    written = write.storages & storages
    if not written:
        return []
    name = split_items(write.place)[0] if write.place is not None else None  # ``buf[i]`` is written in ``buf``
    events = _binds_and_calls(model, write.function)
    kills = [found for found in events if found.value is not None and (
                found.kind == "bind" and name in (None, found.place) and (
                    found.value.fresh and found.value.storages & written
                    or name is not None and found.value.items is None and not found.value.storages & written)
                or found.kind == "call" and found.line == write.line and _made_by_the_call(found) & written)]
    allocations = [found for found in events if found.value is not None and _new_memory(found.value) & written
                   and not (found.kind == "bind" and found.place == name)]
    if name is not None and allocations and _holds_newest(model, write, name, written, events, allocations):
        kills += allocations
    return kills


def _made_by_the_call(call) -> frozenset:
    """The memory a call's new result holds that the call was not handed: what it made
    (``box_iou(a, b)`` returning new tensors), not the tensors a new container it builds holds
    (``dict(mask=x)``)."""
    if not call.value.fresh:
        return EMPTY
    given = tuple(call.detail.get("arguments") or ()) + tuple((call.detail.get("keywords") or {}).values())
    return storages_held(call.value) - frozenset().union(*(
        storages_held(value) for value in given if type(value) is Value))


def _new_memory(value) -> frozenset:
    """The memory a value made anew: its own where it is fresh, and its fresh items' (``out, aux
    = f(x)``), not what a new container or optimizer merely holds."""
    made = value.storages if value.fresh else EMPTY
    for _, item in value.items or ():
        made = made | _new_memory(item)
    return made


def _holds_newest(model, write, name: str, written: frozenset, events: list, allocations: list) -> bool:
    """Whether ``name`` holds, wherever ``write`` runs, what the latest run of an allocation made:
    it is bound to a part of it in the allocation's block, and no path runs the allocation again
    before the write without binding the name anew (``prev`` bound to the last iteration's
    buffer holds an earlier object once the next iteration allocates)."""
    derived = [found for found in events if found.kind == "bind" and found.place == name and found.value is not None
               and storages_held(found.value) & written
               and any(made.block == found.block and made.order < found.order for made in allocations)]
    return bool(derived) and not any(model.events.after_unless(made, write, derived) for made in allocations)


def _binds_and_calls(model, function) -> list:
    """The bind and call events of one function (indexed once per file)."""
    index = model.answers.get("binds and calls")
    if index is None:
        index = model.answers["binds and calls"] = {}
        for event in model.events.find("bind") + model.events.find("call"):
            index.setdefault(id(event.function), []).append(event)
    return index.get(id(function), [])


def _bound_anew_before(model, event, storages: frozenset) -> bool:
    """Whether one of ``storages`` was made anew earlier in ``event``'s block: ``event``'s place
    bound to a new allocation, or a call there returning new memory (the same site's memory,
    made again in this iteration)."""
    if not storages:
        return False
    return any(found.block == event.block and found.order < event.order and found.value is not None and (
                   _made_by_the_call(found) & storages if found.kind == "call"
                   else found.value.fresh and found.value.storages & storages and (
                       event.place is None or found.place == event.place))
               for found in _binds_and_calls(model, event.function))


def _constructs_first(alias, write) -> bool:
    """A write in the constructor of the class one of whose methods made the alias: ``__init__``
    writes an instance's state before any other method of that instance can run."""
    owner = alias.function.owner
    return (owner is not None and write.function is not alias.function and write.function.owner is owner
            and getattr(write.function.node, "name", "") == "__init__")


def views_a_blank_buffer(model, alias) -> bool:
    """A part of a buffer made blank to be filled (``self.cache = torch.zeros(n, d)``;
    ``self.keys = self.cache[:, :k]``): no one keeps such a view for the content it had, it is
    a window onto what the buffer will hold."""
    if alias.place is None:
        return False
    try:
        source = model.value_at(alias.line, alias.place)
    except (KeyError, TypeError, SyntaxError):
        return False
    return "blank" in source.facts


def fills_a_blank_buffer(sharing: Sharing) -> bool:
    """A write through the alias of a buffer the alias's own function made blank to be filled
    (``self.buf = torch.empty(n)``, or an object built there whose constructor did: no one can
    have read its content): filling it through its alias is what it is for."""
    alias = sharing.alias
    node = alias.function.node
    if type(node) is ast.Module:  # module-level code: not what a function or a class of it made
        elsewhere = [(statement.lineno, statement.end_lineno) for statement in node.body
                     if type(statement) in (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)]
        made_here = all(_allocated_within(storage, 1, float("inf")) and not any(  # a site of this file, outside them
            _allocated_within(storage, first, last) for first, last in elsewhere) for storage in alias.value.storages)
    else:
        made_here = all(_allocated_within(storage, node.lineno, node.end_lineno) for storage in alias.value.storages) or (
            _overwrites(sharing.write) and all(  # an object built here, its constructor made it: a fill, not an update
                _allocated_within(_owner(storage), node.lineno, node.end_lineno) for storage in alias.value.storages))
    return sharing.written_alias and "blank" in alias.value.facts and made_here


def _overwrites(write) -> bool:
    """A write that sets what it writes without reading it: an item or slice assignment, or a
    method that overwrites (``copy_``, ``fill_``), not an update (``+=``, ``add_``)."""
    node = write.node
    if type(write.detail.get("statement")) is ast.AugAssign:
        return False
    if type(node) is ast.Subscript:
        return type(getattr(node, "ctx", None)) is ast.Store
    return type(node) is ast.Call and type(node.func) is ast.Attribute and "overwrites" in k.role_of(
        "method", node.func.attr)


def _owner(storage):
    """The allocation an object's attribute belongs to (``("attribute", site, "frames")``: the
    object built at ``site``, whose constructor made the buffer), else the storage itself."""
    while held_through(storage) is not storage:
        storage = held_through(storage)
    return storage


def _held(model, write, through_alias: bool, made, name: Optional[str], alias) -> Optional[tuple]:
    """The unwritten side held where it outlives the function when ``write`` runs, or an alias
    kept as a snapshot by its name."""
    if not through_alias and name is not None and snapshot_named(name) and write.function is alias.function:
        return name, "is kept as a snapshot (its name says so)"
    try:
        state = model.state_before(write.line)
    except (KeyError, TypeError):
        return None
    # a source out of the state is evaluated there (``self.rows[*]``: the container holding the item)
    source = split_items(alias.place)[0] if alias.place is not None else None
    source = source if source is not None and source not in state else None
    for place in write.detail.get("holders", ()) + ((source,) if source else ()):
        value = state.get(place) if place is not source else model.value_at(write.line, place)
        if value is None or type(value) is frozenset:
            continue
        side = _side(value, write.storages, made)
        if side is None or side == through_alias:
            continue
        if through_alias and name is not None and (name == place or name.startswith(place + ".")):
            continue  # ``layer`` holds it as ``layer.weight.data``, the alias written itself
        if _data_of_the_written(model, state, place, write):
            continue  # ``h.fc.weight.data`` is ``h.fc.weight``, the written tensor itself: no second object
        holder = _outliving(write.function, place) or ("stored away" if not through_alias and "." in place else None) \
            or _of_the_module(model, write.function, place)
        if holder == "a parameter" and not _parameter_holds(value, write):
            holder = None  # ``image = to_hsv(image)``: the name holds a value of the function's own now
        if holder is not None:
            return place, f"outlives the function ({holder})"
        kept = _kept_in(write.function, value)
        if kept is not None:
            return kept
    if through_alias:
        return _parameter_written(write, alias) or _attribute_of_another_object(write, alias)
    return None


def _mixes_in_what_it_writes(model, write) -> bool:
    """Whether an in-place write takes the memory it writes as an operand too (``kept.add_(p)``
    where ``kept`` is ``p``, an average's ``mul_(d).add_(p)``): the code takes the two for two
    tensors, as an accumulator of what it watches."""
    return any(call.node is write.node and any(
        type(argument) is Value and argument.storages & write.storages
        for argument in tuple(call.detail.get("arguments") or ()) + tuple((call.detail.get("keywords") or {}).values()))
        for call in model.events.find("call"))


def _handed_to_its_object(write, alias) -> Optional[tuple]:
    """A write through an alias the object keeps of what its constructor was handed
    (``self.total = [p.detach() for p in self.model.parameters()]`` of the model ``SWA(model)`` was
    given): the caller's object, which outlives the method. (A handle taken to write the model,
    ``w = p.detach(); w.mul_(k)``, is not kept.)"""
    for storage in sorted(write.storages & alias.value.storages, key=str):
        if type(storage) is tuple and storage[:1] == (HANDED,) and len(storage) == 4:
            return f"self.{storage[3]}", "outlives the function (what the object was handed)"
    return None


def _of_the_module(model, function, place: str) -> Optional[str]:
    """``"a module-level name"`` where ``place`` is a name the module binds and ``function`` only
    reads (``previews.append(img.numpy())`` into the module's ``previews = []``): it holds what the
    function put there after the call returns."""
    head = place.split(".", 1)[0].split("[", 1)[0]
    if function is model.module or head in function.bound_names or head not in model.module_variables:
        return None
    return "a module-level name"


def _data_of_the_written(model, state: dict, place: str, write) -> bool:
    """Whether ``place`` is ``<base>.data`` of the tensor the write writes (``h.fc.weight.data``,
    ``h.fc.weight`` holding that memory): the tensor written itself, not a second object."""
    if not place.endswith(".data"):
        return False
    base = place[:-len(".data")]
    value = state.get(base)
    if value is None:
        try:
            value = model.value_at(write.line, base)
        except (KeyError, TypeError):
            return False
    return type(value) is not frozenset and value is not None and bool(value.storages) \
        and value.storages <= write.storages


def _attribute_of_another_object(write, alias) -> Optional[tuple]:
    """A write through an alias of an attribute of an object another function built
    (``torch.asarray(self.env.get_state())`` of the ``env.state`` its caller's environment
    holds): that object keeps its memory past this call."""
    node = write.function.node
    if type(node) is ast.Module:
        return None
    for storage in sorted(write.storages & alias.value.storages, key=str):
        if type(storage) is tuple and len(storage) == 3 and storage[0] == "attribute" \
                and _allocated_within(storage[1], 1, float("inf")) \
                and not _allocated_within(storage[1], node.lineno, node.end_lineno):
            return f"<object>.{storage[2]}", "outlives the function (an attribute of an object another function made)"
    return None


def _made_before_its_loop(model, alias) -> bool:
    """Whether the memory an alias made in a loop names was made before that loop (``batch =
    self.buffer`` each pass): every pass names one object, so a write through the alias in the
    next pass writes what the last pass handed out."""
    loop = model.events.innermost_loop(alias)
    if not loop:
        return False
    node = alias.function.node
    first = min((event.line for event in model.events.of_function(alias.function) if event.block in loop),
                default=alias.line)
    return bool(alias.value.storages) and all(
        not allocated_in(storage, (first, node.end_lineno)) for storage in alias.value.storages)


def _collected_from_generator(model, alias) -> Optional[tuple]:
    """An alias a generator yields, its source written by the generator before the next item,
    where a consumer of the file keeps the items together (``frames = list(read_frames(n))``):
    every item it keeps is the one memory, showing what was written last."""
    summary = alias.function.summary
    returned = getattr(summary, "returns", None)
    made = alias.detail["made"]
    if returned is None or "generator" not in returned.kinds or not _storages_made(returned, made):
        return None
    for event in model.events.events:
        if event.kind in ("bind", "call") and event.function is not alias.function and event.value is not None \
                and event.value.items and event.value.kinds & _COLLECTIONS \
                and any(_storages_made(item, made) for _, item in event.value.items) \
                and not (event.kind == "bind" and _loop_target(model, event)):  # ``for state in states():`` one item, a dict
            keeper = event.place or (f"{place_of(event.node.func)}()" if type(event.node) is ast.Call
                                     and place_of(event.node.func) else "a collection")
            return keeper, f"keeps every item it yields (line {event.line})"
    return None


def _loop_target(model, event) -> bool:
    """Whether a bind event binds the target of a ``for`` loop or a comprehension (one item at a time)."""
    key = ("loop targets", id(event.function))
    if key not in model.answers:
        node = getattr(event.function, "node", None)
        model.answers[key] = {id(part) for loop in (ast.walk(node) if node is not None else ())
                              if type(loop) in (ast.For, ast.AsyncFor, ast.comprehension) for part in ast.walk(loop.target)}
    return id(event.node) in model.answers[key]


_COLLECTIONS = kinds("list", "tuple", "dict", "set")  # what keeps the items a generator yields together


def _parameter_holds(value, write) -> bool:
    """Whether a parameter's name still holds what its caller passed, and that is (or holds
    as an item: a list of the caller's tensors) what ``write`` writes."""
    name = write.function.name
    if any(parameter_index(storage, name) is not None
           for storage in value.storages & (write.storages | containers_of(write.storages))):
        return True
    return any(parameter_index(storage, name) is not None for storage in value.storages) and any(
        item.storages & write.storages for _, item in value.items or ())


def _parameter_written(write, alias) -> Optional[tuple]:
    """A write through an alias of a parameter whose name now holds the alias (``x = x.float();
    x[m] = 0``): the caller's tensor is written, where a caller of the file keeps it (rebinding
    the name to its alias says the function means to work on it; only a caller that reads its
    tensor again is evidence of the hazard; an item of a dict it passes, ``batch = {k: v.to(d) for
    k, v in batch.items()}``, likewise). A closure writing through its factory's alias writes
    the tensor the factory's caller passed (``mean = start`` kept by ``update``)."""
    closure = write.function.parent is alias.function
    # the alias as it arrived in another function (``batch = self.to_device(batch)``): that function's memory
    written = write.storages & alias.value.storages or write.storages
    for function in (write.function, alias.function) if closure else (write.function,):
        for storage in sorted(written, key=str):
            index = parameter_holding(storage, function.name)
            if index is not None and index >= function.receiver_offset and function.kept_by_callers.get(index):
                return function.names[index], "outlives the function (a parameter, the caller's tensor)"
    return None


def _kept_in(function, value) -> Optional[tuple]:
    """The container that outlives the function ``value`` was taken from (``slot =
    self.slots[key]``: the model's ``item_of`` fact): it still holds the value."""
    for fact in value.facts:
        container = fact[len(ITEM_OF):] if fact.startswith(ITEM_OF) else None
        holder = _outliving(function, container) if container is not None else None
        if holder is not None:
            return f"{container}[*]", f"outlives the function ({holder})"
    return None


class AliasRule(Rule):
    """A TEN2xx rule on the model: the chains its operation decides, observable ones reported at
    the expression that made the alias, with the lines of the write and of the observation.
    Every fix replaces that expression with a copy: unsafe, it removes an alias on purpose."""

    events = ("sharing",)
    copy_method = "clone"  # what copies the rule's values: a tensor's ``clone()``, an array's ``copy()``
    # an alias returned by a helper is written by its caller; one kept on self is written in another method
    reads = ("summaries", "stores on self", "callers")
    kinds = ()

    def query(self, model, site) -> None:
        for alias, kind in chains(model):
            if kind not in self.kinds:
                continue
            found = [sharing for sharing in sharings(model, alias, kind) if self.hazard(model, sharing)]
            node = site.node_of(self.report_node(model, alias)) if found else None
            if node is None:
                continue
            first = found[0]
            # a copy bound to a module's attribute under a parameter's name raises (TypeError): no fix there
            # (not ``nn.Parameter(init)``: its fix is a parameter of its own already)
            on_parameter = parameter_attribute(model, alias) and not alias.detail["op"].endswith("Parameter()")
            if on_parameter:
                fix = None
            elif type(node) is cst.Subscript and handed_back(alias):  # ``ds[i]``: a copy of what it hands back
                fix = unsafe(node, method(bare(node), self.copy_method))
            else:
                fix = self.fix(node, alias, site)
            advice = "use " + (suggestion(site, fix.replacement, node) if fix is not None else self.use_instead)
            name = alias_place(model, alias) or site.source_of(node)
            if on_parameter:
                advice = (f"use a copy of its own, {site.source_of(node)}.detach().clone(), in nn.Parameter(...) "
                          f"where '{name}' is a parameter")
            source = self.source_of(model, alias)
            written = first.write.place or (name if first.written_alias else source)
            site.report(self.code, node, (
                f"'{name}' shares memory with '{source}' ({alias.detail['op']} does not copy): '{written}' is "
                f"written in place{self.writer(site, first.write)} on line {first.write.line} and '{first.observed}' "
                f"{first.observation}; {advice}"),
                fix)

    def source_of(self, model, alias) -> str:
        """The innermost named place of the chain: ``w`` for ``w.view(-1).detach()``."""
        chain = [event for event in model.events.find("alias") if event.place is not None
                 and event.detail["made"] in alias.value.made and inside(event.node, alias.node)]
        if not chain:  # no named place: the source as written (``encoder.get_input_embeddings().weight``)
            source = alias.detail.get("source_node")
            return alias.place or (ast.unparse(source) if isinstance(source, ast.AST) else "?")
        return _iterated(model, min(chain, key=lambda event: (event.node.end_lineno, event.node.end_col_offset)))

    def hazard(self, model, sharing: Sharing) -> bool:
        return True

    def report_node(self, model, alias):
        """The ast node the finding is reported at (and its fix rewrites): the alias's own."""
        return alias.node

    def writer(self, site, write) -> str:
        """How the message names the write beside its line (`` by opt.step()``): a generator
        refilling what it yielded, by default."""
        refilled_by = write.detail.get("refilled_by")
        return f" by {refilled_by}() for its next item" if refilled_by else ""

    def fix(self, node, alias, site) -> Optional[Fix]:
        return None

    use_instead = "a copy"


def parameter_attribute(model, alias) -> bool:
    """Whether the alias, a value that may be a parameter (a leaf requiring grad), is bound to
    an attribute of what may be a module (``self.backup = self.w`` in an ``nn.Module``)."""
    name = alias_place(model, alias) or ""
    owner, _, attribute = name.rpartition(".")
    if not owner or "[" in attribute or not alias.value.grad or alias.value.graph:
        return False
    try:
        held = model.value_at(alias.line, owner)
    except (KeyError, TypeError, SyntaxError):  # no state at that line, or a place no expression spells
        return True  # unknown: it may be a module
    return held is None or bool(held.kinds & {"module", "?"})


def _iterated(model, alias) -> str:
    """The alias's source, a comprehension's variable named by what it iterates (``params[*]``)."""
    comprehension = comprehension_of(model, alias.node)
    for generator in comprehension.generators if comprehension is not None else ():
        if type(generator.target) is ast.Name and generator.target.id == alias.place and place_of(generator.iter):
            return place_of(generator.iter) + "[*]"
    return alias.place


def handed_back(alias) -> bool:
    """An alias a helper of the file made and a call of it hands back (``ds[i]`` calls
    ``__getitem__``): recorded at the call (its source is the call itself), so a fix copies the
    call's result, never rewrites the call."""
    return type(alias.node) in (ast.Call, ast.Subscript) and alias.detail.get("source_node") is alias.node


def unsafe(node, new) -> Optional[Fix]:
    return Fix(keep_parentheses(node, new), safe=False) if new is not None else None


# ----- what a function says about the writes through an alias it makes (TEN204, TEN206)
def _holds(value, storages: frozenset, made, alias_side: bool, chain: frozenset = EMPTY) -> bool:
    """Whether ``value`` (or an item of it) holds one of ``storages`` on the given side: the
    source side only where no other alias made it (``chain``: the aliases the source itself
    was made by; ``{"l": x[:k], "r": x[k:]}`` holds no source of ``x[:k]``, only another view)."""
    if value.storages & storages and (made in value.made if alias_side else made not in value.made
                                      and value.made <= chain):
        return True
    return any(_holds(item, storages, made, alias_side, chain) for _, item in value.items or ())


def returned_side(model, alias, alias_side: bool) -> bool:
    """Whether the function that made the alias returns one of its sides (the alias, or the
    source: an updater that writes its argument through a view and hands the argument back), or
    yields it (a generator's items: ``yield data[i:i + n]``)."""
    made, storages = alias.detail["made"], alias.value.storages
    chain = alias.value.made - {made}
    summary = alias.function.summary
    returned = getattr(summary, "returns", None)
    if returned is not None and "generator" in returned.kinds and _holds(returned, storages, made, alias_side, chain):
        return True
    return any(event.function is alias.function and event.value is not None
               and _holds(event.value, storages, made, alias_side, chain) for event in model.events.find("return"))


def collected(model, alias, write) -> bool:
    """Whether the function stores the alias as an item of a container (``rows.append(x[i])``,
    ``kept[k] = x[i]``), a record kept beside others rather than a window looked through by its
    name, and ``write`` follows on a path that does not bind the name of its source again
    (``for tile in row:`` names another object at each pass, which the model takes for one;
    ``h = h + d; kept.append(h[:, -1]); h.mul_(r)`` writes the one it kept)."""
    made, events = alias.detail["made"], model.events
    if not any(event.function is alias.function and event.place is not None and "[" in event.place
               and event.value is not None and made in event.value.made and events.after(alias, event)
               for event in events.find("bind")):
        return False
    rebinds = [event for event in events.find("bind") if event.function is alias.function and event.place == alias.place]
    return events.after_unless(alias, write, rebinds)


def source_written_itself(model, alias) -> bool:
    """Whether the function also writes the source it was handed (a parameter, an attribute of
    one) through a name of its own (not through this alias): changing it is the function's job."""
    made, storages = alias.detail["made"], alias.value.storages
    return alias.place is not None and _outliving(alias.function, alias.place) is not None and any(write.function is alias.function and write.storages & storages and made not in write.value.made
               for write in model.events.find("write"))


def written_for_its_source(model, alias, sharing: Sharing) -> bool:
    """A local name bound straight to a tensor the caller or the object holds (``w = m.weight``,
    ``w = self.weight.detach()``, ``w = p.view(-1)``), written through that name by the function
    itself (``w.clamp_(0)``, ``w[0] = v``, ``w += d``, ``nn.init.normal_(w)``), and observed after
    those writes by nothing but the writes themselves (``w.div_(w.sum())``): not read, returned,
    stored or handed on. The writes reach nothing but the source, so writing the source is their
    purpose (init helpers, projections, BN-stat updates); a copy would make them a no-op."""
    if not sharing.written_alias or alias.place is None or _outliving(alias.function, alias.place) is None:
        return False
    name = alias_place(model, alias)
    if name is None or "." in name or "[" in name:
        return False
    made = alias.detail["made"]
    events = model.events.of_function(alias.function)
    writes = [event for event in events if event.kind == "write" and event.value is not None and made in event.value.made]
    if not writes or not all(_writes_name(write, name) for write in writes):
        return False
    for event in events:
        if event.value is None or not _carries(event.value, made) or event.kind in ("alias", "write") \
                or inside(event.node, alias.node):
            continue
        if any(inside(event.node, write.node) for write in writes):
            continue  # the receiver or an operand of a write through it
        if event.kind in ("return", "escape") or event.kind == "bind" and event.place != name:
            return False
        if event.kind in ("read", "call") and any(model.events.after(write, event) for write in writes):
            return False
    return True


def _carries(value, made) -> bool:
    """Whether ``value`` or an item of it (``return rows, batch.sum()``) is the alias ``made``."""
    return made in value.made or any(_carries(item, made) for _, item in value.items or ())


def _writes_name(write, name: str) -> bool:
    """Whether the write is made here, on ``name`` itself: a method of it (``name.data.clamp_()``,
    ``name[0].zero_()``), a store or augmented store into it, a torch function handed it first."""
    node = write.node
    if type(node) is ast.Call:
        target = node.func.value if type(node.func) is ast.Attribute and not str(
            write.detail.get("method", "")).startswith("torch.") else (node.args[0] if node.args else None)
    elif type(node) is ast.AugAssign:
        target = node.target
    elif type(node) is ast.Assign and len(node.targets) == 1:
        target = node.targets[0]
    else:
        target = node  # the store target itself (``w[:n]`` of ``w[:n] = v``)
    while type(target) in (ast.Attribute, ast.Subscript, ast.Call):
        target = target.func if type(target) is ast.Call else target.value
    return type(target) is ast.Name and target.id == name


def source_local(model, alias) -> bool:
    """Whether the source is an object the function allocated itself (a local buffer: filling
    it through a view or a second name is the ordinary way to build it)."""
    node = alias.function.node
    first, last = getattr(node, "lineno", 0), getattr(node, "end_lineno", 0)
    return bool(alias.value.storages) and alias.place is not None and all(
        _allocated_within(storage, first, last) for storage in alias.value.storages)


def _allocated_within(storage, first: int, last: int) -> bool:
    """An allocation site (a position, ``(line, column)`` or with its end) on those lines."""
    return type(storage) is tuple and type(storage[0]) is int and first <= storage[0] <= last


def undone(model, write) -> bool:
    """Whether the element ``write`` sets is set back to a number read from it before (``saved
    = flat[i].item(); flat[i] = saved + eps; ...; flat[i] = saved``), by this write or a later
    one: a perturbation the caller never sees."""
    element = place_of(write.node) if type(write.node) is ast.Subscript else None
    if element is None:
        return False
    back = "read_from:" + element
    return any(other.function is write.function and (other is write or model.events.after(write, other))
               and back in getattr(other.detail.get("source"), "facts", ()) for other in model.events.find("write"))


def _receiver(function) -> Optional[str]:
    """The name a method calls its own object (``self``), or None outside a method."""
    return function.names[0] if function.receiver_offset and function.names else None


def held_by_receiver(alias, sharing: Sharing, read_back: bool = False) -> bool:
    """Whether the unwritten side is the method's own object state (``self.counts``), held there
    rather than read back (with ``read_back``, also read back: the state the write updated)."""
    receiver = _receiver(alias.function)
    return receiver is not None and sharing.observed.split(".", 1)[0] == receiver and "." in sharing.observed \
        and (read_back or not sharing.observation.startswith("read"))


def of_its_own_object(alias) -> bool:
    """Whether the alias is made of its method's own object state (``self.k[i]``, ``k_out =
    self.k_cache``)."""
    receiver = _receiver(alias.function)
    return receiver is not None and alias.place is not None and alias.place.startswith(receiver + ".")


# ----- a snapshot kept on an object, loaded back into its own source in a later call (TEN208)
def loaded_back(model, alias) -> Optional[object]:
    """The ``load`` event where the alias, kept on the object that made it (``self.best``),
    is loaded back into the module it was taken from (``self.net.load_state_dict(self.best)``)
    on a later call: another method, or a path of the same one that never follows the snapshot.
    Whatever wrote the module between the calls, the snapshot followed it."""
    place = alias_place(model, alias)
    if place is None or _outliving(alias.function, place) != "an attribute":
        return None
    made, storages = alias.detail["made"], alias.value.storages
    for load in model.events.find("load"):
        if load.value is not None and made in load.value.made and load.detail["weights"] & storages \
                and not model.events.after(alias, load):
            return load
    return None


def report_loaded_back(rule, model, site, alias, load) -> None:
    """The finding for a snapshot loaded back into its source (``loaded_back``): it restores
    the weights as they are now, not as they were saved."""
    node = site.node_of(rule.report_node(model, alias))
    if node is None:
        return
    fix = None if parameter_attribute(model, alias) else rule.fix(node, alias, site)
    advice = "use " + (suggestion(site, fix.replacement, node) if fix is not None else rule.use_instead)
    source = rule.source_of(model, alias)
    site.report(rule.code, node, (
        f"'{alias_place(model, alias)}' shares memory with '{source}' ({alias.detail['op']} does not copy): it "
        f"follows every in-place update of '{source}', so loading it back on line {load.line} restores the current "
        f"weights, not the saved ones; {advice}"), fix)
