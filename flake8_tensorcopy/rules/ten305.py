"""TEN305: ``copy.deepcopy`` of a non-leaf that requires grad, or of a module whose forward
stored one on ``self``."""

import ast
from typing import List, Optional

import libcst as cst

from flake8_tensorcopy.fixes import Fix, detached_copy, keep_parentheses
from flake8_tensorcopy.model.places import place_of
from flake8_tensorcopy.model.values import FIELDS, FORWARDED, Evidence, Value, kinds
from flake8_tensorcopy.rules.base import Rule, short_source, suggestion

_ADVICE = "; store .detach() there or copy before running it"


def _stores_graph(value) -> bool:
    """Whether ``value`` is or holds a non-leaf tensor: a module (``self.layer = layer``, a
    layer the constructor was handed) is no tensor, and deepcopy copies its parameters, leaves."""
    return value.graph and value.kinds != kinds("module") or any(_stores_graph(item) for _, item in value.items or ())


def storing_classes(model, value, seen=()) -> List[str]:
    """The classes of the file an object may be or hold (through its attributes and container
    items) whose methods, or their base classes' of the file, store a non-leaf requiring grad on ``self``."""
    found = []
    for kind in sorted(value.kinds):
        name = kind[7:] if kind.startswith("object:") else None
        info = model.classes.get(name) if name is not None and name not in seen else None
        if info is None:
            continue
        attributes = []
        for own in info.lineage(model.classes):  # what its base classes' methods store on self too
            model.read_class(own)
            attributes += own.attributes.values()
        if any(_stores_graph(attribute) for attribute in attributes):
            found.append(name)
        for attribute in attributes:
            found += storing_classes(model, attribute, seen + (name,))
    for _, item in value.items or ():
        found += storing_classes(model, item, seen)
    return list(dict.fromkeys(found))


def _module_classes_storing_graph(model) -> List[str]:
    return [name for name, info in model.classes.items()
            if model.class_is_module(info) and name in storing_classes(model, Value(kinds("object:" + name)))]


class DeepcopyOfGraphTensor(Rule):
    """
    ## What it does
    Flags `copy.deepcopy(t)` of a tensor that may be a non-leaf requiring grad (a forward
    output, arithmetic on parameters, what a helper of the file returns), of a list, tuple or
    dict or an object of the file (a dataclass, a named tuple, a plain class whose class does not
    define `__deepcopy__`, `__reduce_ex__` or `__getstate__`) holding one, and
    `copy.deepcopy(model)` after a forward pass of a module whose class (or a module it holds,
    in an attribute or a container) stores such a tensor on `self`.

    ## Why is this bad?
    It raises "Only Tensors created explicitly by the user (graph leaves) support the
    deepcopy protocol at the moment."

    ## Example
    ```python
    import copy

    from torch import nn

    def keep(layer: nn.Linear, x):
        out = layer(x)
        return copy.deepcopy(out)
    ```

    ## Use instead
    ```python
    from torch import nn

    def keep(layer: nn.Linear, x):
        out = layer(x)
        return out.detach().clone()
    ```

    ## Fix safety
    Unsafe: the copy is detached from the graph (deepcopy could not have kept it anyway).
    """

    code = "TEN305"
    summary = (
        "`copy.deepcopy` of a non-leaf that requires grad (or of a container or record holding one) raises; "
        "use `t.detach().clone()`"
    )
    calls = ("deepcopy",)

    def query(self, model, site) -> None:
        for event in model.events.find("call"):
            if event.detail.get("callee") != "copy.deepcopy" or len(event.node.args) != 1:
                continue
            value = event.detail["arguments"][0]
            if value.kinds == kinds("module"):  # a module is no tensor: its graph flag says nothing of deepcopy
                value = value._replace(graph=False)
            message = None if value.graph else self._module(model, event, value) or _container(
                _as_copied(model, event, value))
            call = site.node_of(event.node) if value.graph or message is not None else None
            if call is None:
                continue
            if value.graph:
                self._tensor(site, call, value)
            else:
                site.report(self.code, call, f"copy.deepcopy({short_source(site, call.args[0].value)}) {message}")

    def _tensor(self, site, call: cst.Call, value) -> None:
        argument = call.args[0].value
        copy = detached_copy(argument)
        why = ("its name says it is a loss, computed to be backpropagated" if value.evidence("grad") is Evidence.LOSS
               and value.evidence("kind") is Evidence.LOSS else "it was computed from tensors that require grad")
        site.report(self.code, call,
                    f"copy.deepcopy({short_source(site, argument)}) raises: it may be a non-leaf that requires grad "
                    f"({why}); use {suggestion(site, copy, argument)}",
                    Fix(keep_parentheses(call, copy), safe=False))

    def _module(self, model, event, value) -> Optional[str]:
        """Why a deepcopy of a module raises: its forward may have run here (or in the caller
        that passed it) and stored a non-leaf on ``self``."""
        place = place_of(event.node.args[0])
        if place is None or not ("module" in value.kinds or storing_classes(model, value)):
            return None
        known = storing_classes(model, value)
        if known:
            held = "its forward stores" if known[0] in {kind[7:] for kind in value.kinds} else \
                f"it holds {known[0]} modules, whose forward stores"
            text = f"raises after a forward pass: {held} a non-leaf that requires grad on self"
            if _forward_ran(model, event.line, value):
                return f"{text}{_ADVICE}"
            caller = _caller_after_forward(model, event, value)
            if caller is not None:
                return f"{text}: the call on line {caller[0]} passes {caller[1]} after running its forward{_ADVICE}"
            method = _forward_in_another_method(event, value)
            if method is not None:
                return f"{text}: {method}() of the same object runs its forward, and may run before this{_ADVICE}"
            return None
        if any(kind.startswith("object:") for kind in value.kinds) or value.evidence("kind") is Evidence.TORCH_API:
            return None  # a torch.nn class keeps no activation on self
        storing = _module_classes_storing_graph(model)
        if not storing:
            return None
        text = (f"raises after a forward pass if '{place}' holds {storing[0]} modules (a class of this file "
                f"that stores a non-leaf requiring grad on self)")
        if _forward_ran(model, event.line, value):
            return f"{text}: {place}'s forward ran above{_ADVICE}"
        caller = _caller_after_forward(model, event, value)
        if caller is not None:
            return f"{text}: the call on line {caller[0]} passes {caller[1]} after running its forward{_ADVICE}"
        return None


_COPY_HOOKS = ("__deepcopy__", "__reduce__", "__reduce_ex__", "__getstate__")


def _as_copied(model, event, value: Value) -> Value:
    """What deepcopy copies of ``value``: a record's fields as they are at the call (``p.scores =
    p.scores.detach()`` replaced one); nothing of an object whose class says how it is copied
    (``__deepcopy__``, ``__reduce_ex__``, ``__getstate__``)."""
    classes = [model.classes.get(kind[7:]) for kind in value.kinds if kind.startswith("object:")]
    if not classes:
        return value
    if any(info is None or any(info.method(hook, model.classes) is not None for hook in _COPY_HOOKS)
           for info in classes):
        return value._replace(items=None)
    names = next((fact[len(FIELDS):].split("|") for fact in value.facts if fact.startswith(FIELDS)), None)
    place = place_of(event.node.args[0])
    if not names or place is None or not value.items:
        return value
    try:
        fields = {str(index): model.value_at(event.line, f"{place}.{name}") for index, name in enumerate(names)}
    except (KeyError, TypeError, SyntaxError):  # no state at that line
        return value
    return value._replace(items=tuple((key, fields.get(key, item)) for key, item in value.items))


def _container(value: Value) -> Optional[str]:
    """Why a deepcopy of a list, tuple or dict, or of an object of the file (a dataclass, a named
    tuple, a plain class), raises: deepcopy copies each item or field, and one may be a non-leaf
    that requires grad (``self.trace.append(self.fc(x))`` in ``forward``, ``Output(logits=model(x))``)."""
    holds_items = value.kinds & {"list", "tuple", "dict"} or any(kind.startswith("object:") for kind in value.kinds)
    if not holds_items or not any(_stores_graph(item) for _, item in value.items or ()):
        return None
    return ("raises: it holds tensors that may be non-leaves requiring grad, and deepcopy copies each; "
            "keep .detach() of them there, or copy them with .detach().clone()")


def _forward_ran(model, line: int, module: Value) -> bool:
    """Whether the object ``module`` may have run its forward before ``line`` (by any name)."""
    return bool(module.storages & model.state_before(line).get(FORWARDED, frozenset()))


def _caller_after_forward(model, event, value):
    """(line, argument) of a call of the deepcopy's function passing, for the parameter
    copied, a module whose forward ran before the call."""
    function = event.function
    indexes = [storage[1] for storage in value.storages if storage[:1] == ("param",) and storage[2] == function.name]
    for call in model.events.find("call"):
        if call.detail.get("callee") != function.name:
            continue
        for index in indexes:
            position = index - function.receiver_offset
            argument = call.node.args[position] if 0 <= position < len(call.node.args) else None
            if position < 0 and type(call.node.func) is ast.Attribute:  # the receiver: ``p`` of ``p.snapshot()``
                argument = call.node.func.value
            passed = call.detail.get("arguments") or ()
            place = place_of(argument) if argument is not None else None
            if place is not None and index < len(passed) and _forward_ran(model, call.line, passed[index]):
                return call.line, place
    return None


def _forward_in_another_method(event, value: Value) -> Optional[str]:
    """The name of another method of the deepcopy's class (not ``__init__``, which runs before
    any) that runs the forward of the module copied (``self.model(x)`` in ``train_step``, the
    copy in ``make_ema``): methods of one object run in any order, as a training loop calls them."""
    function = event.function
    owner = function.owner
    if owner is None or not function.receiver_offset or function.node.name == "__init__" or not value.storages:
        return None
    for name, method in sorted(owner.methods.items()):
        if method is function or name == "__init__" or not method.states:
            continue
        exit_state = method.states[1] or {}
        if value.storages & exit_state.get(FORWARDED, frozenset()):
            return name
    return None


RULES = (DeepcopyOfGraphTensor(),)
