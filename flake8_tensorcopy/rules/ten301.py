"""TEN301: ``.data`` where it can corrupt or silently drop gradients."""

import ast
from typing import Dict, Optional

import libcst as cst

from flake8_tensorcopy.fixes import Fix, bare, chain, keep_parentheses
from flake8_tensorcopy.model.values import DROPPED
from flake8_tensorcopy.rules.base import Rule, short_source, suggestion


def data_reads(model) -> Dict[str, object]:
    """The ``attribute`` events of ``.data`` on a tensor, by where they are (``line:col``)."""
    return {f"{event.node.lineno}:{event.node.col_offset}": event for event in model.events.find("attribute")
            if event.detail["attribute"] == "data"}


def data_aliases(model, value) -> list:
    """The ``line:col`` of the ``.data`` reads a value is an alias made by."""
    return [where for where, operation in model.alias_steps(value) if operation == ".data"]


def _written_through_data(model, write) -> list:
    """The ``.data`` reads a write goes through: the written value's own, or, for a call of a
    helper of the file writing what it was handed (``clamp_all(model)``), the helper's."""
    made = frozenset().union(*write.detail.get("through", ()))
    return data_aliases(model, write.value._replace(made=write.value.made | made) if made else write.value)


def detached_fix(site, node: cst.Attribute, assigned: bool):
    """(the ``x.detach()`` replacement, its fix or None where ``x.data`` is assigned to)."""
    detached = chain(bare(node.value), "detach")
    return detached, None if assigned else Fix(keep_parentheses(node, detached), safe=False)


def _assigned_through(write, attribute) -> bool:
    """``x.data += v``: the statement's target is the ``.data`` itself (no call can replace it)."""
    return type(write.node) in (ast.AugAssign, ast.Assign) and attribute.node in (
        getattr(write.node, "targets", None) or [getattr(write.node, "target", None)])


class DataAttribute(Rule):
    """
    ## What it does
    Flags `.data` where it can corrupt or silently drop gradients: an in-place write through
    `x.data` (or an alias of it) to a tensor that a recorded operation saved for backward,
    before that backward runs (in the same function, or in a caller that backpropagates what
    the function returns), or a read of `x.data` (of a tensor that requires grad) whose value
    goes into a computation that requires grad (a loss, an output), or into a loss built from it
    alone whose `backward()` runs (it raises: nothing of that loss requires grad). Every other `.data` use
    (initialisation, `no_grad` code, EMA updates, `p.data = ...` swaps) is TEN901, off by default.

    ## Why is this bad?
    Writes through `.data` bypass autograd's version counter: a backward pass that saved the
    old values succeeds **with wrong gradients**, where the same write through `.detach()`
    raises "one of the variables needed for gradient computation has been modified by an
    inplace operation". A loss built from `x.data` has no gradient path to `x`: it trains nothing.

    ## Example
    ```python
    import torch.nn.functional as F
    from torch import nn

    def step(layer: nn.Linear, x, y):
        out = layer(x)
        layer.weight.data.mul_(0.5)
        F.mse_loss(out, y).backward()
    ```

    ## Use instead
    ```python
    import torch
    import torch.nn.functional as F
    from torch import nn

    def step(layer: nn.Linear, x, y):
        out = layer(x)
        F.mse_loss(out, y).backward()
        with torch.no_grad():
            layer.weight.mul_(0.5)
    ```
    Reads become `x.detach()` (or `x` itself, where the gradient was meant to flow).

    ## Fix safety
    Unsafe: `.detach()` makes autograd notice in-place writes, so code that relied on the
    silence now raises (which is the point).
    """

    code = "TEN301"
    summary = "`.data` written between forward and backward, or read into a loss, corrupts or drops gradients"
    attributes = ("data",)

    def query(self, model, site) -> None:
        reads = data_reads(model)
        if not reads:
            return
        found: Dict[int, tuple] = {}
        for write in model.events.find("write"):
            hazard = _write_hazard(model, write) if write.detail["grad_mode"] else None
            for where in _written_through_data(model, write) if hazard else ():
                attribute = reads.get(where)
                if attribute is not None:
                    if attribute.function is not write.function:  # a helper's write, at the call that runs it
                        hazard = hazard.replace(" in place ", f" in place by the call on line {write.line} ", 1)
                    found.setdefault(id(attribute.node), (attribute, hazard, _assigned_through(write, attribute)))
        for mix in model.events.find("graph_mix"):
            for where in sorted(mix.detail["dropped"]):
                attribute = reads.get(where.rpartition("@")[2])
                if attribute is not None:
                    base = short_source_of(site, attribute)
                    found.setdefault(id(attribute.node), (
                        attribute, f"read into a computation that requires grad (line {mix.line}) while '{base}' "
                                   "requires grad: no gradient reaches it", False))
        for backward in model.events.find("backward"):
            loss = backward.value
            if loss is None or loss.grad:  # (``if loss.requires_grad:`` proved it requires grad there)
                continue
            for where in sorted(fact.rpartition("@")[2] for fact in loss.facts if fact.startswith(DROPPED)):
                attribute = reads.get(where)
                if attribute is not None:  # a loss built from the detached read alone: its backward raises
                    found.setdefault(id(attribute.node), (
                        attribute, f"read into a loss whose backward() (line {backward.line}) has no gradient path: "
                                   f"nothing of it requires grad, so backward raises and '{short_source_of(site, attribute)}' "
                                   "gets no gradient", False))
        for attribute, hazard, assigned in found.values():
            node = site.node_of(attribute.node)
            if node is None:
                continue
            detached, fix = detached_fix(site, node, assigned)
            site.report(self.code, node,
                        f"{short_source(site, node.value)}.data is {hazard}; use {suggestion(site, detached, node.value)}",
                        fix)


def short_source_of(site, attribute) -> str:
    node = site.node_of(attribute.node)
    return short_source(site, node.value) if node is not None else ""


def _write_hazard(model, write) -> Optional[str]:
    """Why a write corrupts gradients: it changes what autograd saved before the backward that
    reads it, here or in a caller backpropagating what the function returns."""
    events = model.events
    # (not a generator's own backward between two items: it never sees the graphs the loop body builds)
    if write.detail["saved"] and any(events.after(write, backward) for backward in events.find("backward")
                                     if not backward.detail.get("resumed")):
        return ("written in place after a forward pass and before its backward(): the saved values change "
                "behind autograd's back (wrong gradients, no error)")
    base = write.place[:-len(".data")] if write.place and write.place.endswith(".data") else "it"
    returns = [returned for returned in events.find("return") if returned.function is write.function
               and events.after(write, returned) and returned.value.graph] if write.detail["saved"] else []
    if any(returned.value.storages & write.storages for returned in returns):
        return (f"written in place while '{base}' is in a graph (saved for backward by the operation that made "
                "it, and returned to the caller): wrong gradients, no error")
    if returns and _module_forward(model, write.function):
        return (f"written in place while '{base}' is in a graph (saved for backward by the operation that made "
                "it, in a forward whose output its caller backpropagates): wrong gradients, no error")
    function = write.function
    summary = function.summary
    if not (summary and summary.saved & write.storages and summary.returns is not None and summary.returns.grad_from):
        return None
    caller = _caller_backpropagating(model, function)
    if caller is None:
        return None
    return (f"written in place while '{base}' is in a graph (saved for backward in "
            f"'{getattr(function.node, 'name', function.name)}', whose caller '{caller}' calls backward() on its "
            "result): wrong gradients, no error")


def _module_forward(model, function) -> bool:
    """A module's ``forward``: what it returns in a graph is what its caller backpropagates, so
    everything it saved on the way is read by that backward."""
    owner = function.owner
    return owner is not None and getattr(function.node, "name", "") == "forward" and model.class_is_module(owner)


def _caller_backpropagating(model, function) -> Optional[str]:
    """The name of a function calling ``function`` and then ``backward()`` on its result (or
    on what a chain of calls makes of it)."""
    events = model.events
    backwards = events.find("backward")
    for call in events.find("call"):
        if call.detail.get("callee") != function.name:
            continue
        for backward in backwards:
            if backward.function is call.function and (events.after(call, backward) or _holds(backward.node, call.node)) \
                    and (backward.value is not None and backward.value.storages & call.value.storages
                         or _holds(backward.node, call.node)):
                return getattr(call.function.node, "name", call.function.name)
    return None


def _holds(outer: ast.AST, inner: ast.AST) -> bool:
    return any(node is inner for node in ast.walk(outer))


RULES = (DataAttribute(),)
