"""Containers of aliases: what a comprehension collects, and whose items a list holds.

``[p.detach() for p in params]`` makes a list whose every item shares memory with an item of
``params``; when ``params`` holds a model's parameters (``list(model.parameters())``, kept in a
name or on ``self``), its items are those parameters, the same memory the next loop over
``model.parameters()`` sees. The alias facts of such a list are keyed by the items it aliases.
"""

from typing import Optional

import libcst as cst

from flake8_tensorcopy.analysis.facts import PARAMETERS, element_key
from flake8_tensorcopy.analysis.scope import dotted_name
from flake8_tensorcopy.analysis.tensors import called_parameters_owner

# Methods of a mapping whose items are its values (``d.items()``: the pairs' second half).
_VALUE_ITERATORS = frozenset({"items", "values"})


def collected_aliases(tracker, value: cst.BaseExpression):
    """The ``Alias`` of the items a one-clause list or dict comprehension collects an alias of
    each of (``[p.data for p in self.params]``: detached, of ``self.params[*]``)."""
    if type(value) is cst.ListComp:
        element = value.elt
    elif type(value) is cst.DictComp:
        element = value.value
    else:
        return None
    loop = value.for_in
    target = loop.target
    if type(target) is cst.Tuple and len(target.elements) == 2:
        target = target.elements[1].value  # ``for name, p in model.named_parameters()``
    if loop.inner_for_in is not None or type(target) is not cst.Name:
        return None
    analysis = tracker.analysis
    items = _items_key(analysis, loop.iter)
    if items is None:
        return None
    outer = analysis.scope
    analysis.scope = analysis.inference.comprehension_scope(loop, outer)
    try:
        alias = tracker.describe(element)
    finally:
        analysis.scope = outer
    if alias is None or alias.source != target.value:
        return None
    return alias._replace(source=items)


def _items_key(analysis, iterated: cst.BaseExpression) -> Optional[str]:
    """The key of the items a ``for`` over ``iterated`` yields: ``model.parameters()[*]`` for
    ``model.parameters()``, ``batch[*]`` for ``batch`` or ``batch.items()`` (``items_key`` says
    whether a container holds parameters)."""
    owner = called_parameters_owner(iterated)
    if owner is not None:
        return element_key(owner + PARAMETERS)
    if type(iterated) is cst.Call and type(iterated.func) is cst.Attribute and iterated.func.attr.value in _VALUE_ITERATORS:
        iterated = iterated.func.value
    container = dotted_name(iterated)
    return element_key(container) if container is not None else None


def items_key(analysis, key: str) -> Optional[str]:
    """``model.parameters()[*]`` for ``params[*]`` or ``self.params[*]`` when that list holds the
    parameters of ``model``; None otherwise."""
    if not key.endswith("[*]"):
        return None
    parts = key[:-3].split(".")
    if len(parts) > 2 or not all(part.isidentifier() for part in parts):
        return None
    node = cst.Name(parts[0])
    if len(parts) == 2:
        node = cst.Attribute(value=node, attr=cst.Name(parts[1]))
    owner = analysis.inference.parameters_owner(node, analysis.scope)
    return element_key(owner + PARAMETERS) if owner is not None else None


def made_by(value: cst.BaseExpression, snapshot: bool) -> cst.BaseExpression:
    """The expression that made an alias, where a finding points and its fix goes: the element
    of a comprehension collecting aliases, else ``value`` itself (a state_dict ``snapshot``
    comprehension is one snapshot as a whole)."""
    if type(value) is cst.ListComp:
        return value.elt
    if type(value) is cst.DictComp and not snapshot:
        return value.value
    return value
