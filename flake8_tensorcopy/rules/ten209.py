"""TEN209: an in-place write to a tensor that cannot be written in place."""

import ast

from flake8_tensorcopy import knowledge as k
from flake8_tensorcopy.rules.base import Rule, short_source
from flake8_tensorcopy.rules.writes import innermost, out_of_place_fix, takes_everything, write_site

ITERATION = "unbind() (iterating over it)"


def unwritable(value):
    """("overlapping", "repeated" or "split", the operation) when the model knows ``value`` is a
    view that cannot be written in place: made by ``expand()``, a part of what it made (a row
    the other rows share), or an output of ``chunk()``."""
    for fact in sorted(value.facts):
        kind, _, op = fact.partition(":")
        if kind in ("overlapping", "repeated", "split"):
            return kind, op
    return None


class UnwritableView(Rule):
    """
    ## What it does
    Flags an in-place write to a tensor that cannot be written in place: the result of
    `expand()`/`expand_as()`/`broadcast_to()` or a grid of `torch.meshgrid()` (kept in a name,
    an attribute or a buffer) or a part of one (`mask[b]`, `mask[b] = 0`), or
    an output of `chunk()`/`split()`/`unbind()` (also by iterating over the tensor) of a tensor
    in an autograd graph, written outside `torch.no_grad()`. The tensor is followed through
    aliases, containers, attributes set in another method and helpers' parameters, when a
    caller in the module passes a tensor that requires grad.

    ## Why is this bad?
    An expanded tensor repeats one memory location at many positions: `add_`, `mul_`,
    `copy_`, `+=` raise "unsupported operation: more than one element of the written-to
    tensor refers to a single memory location" on CPU and CUDA, and `masked_fill_` does not
    raise on CPU: it writes every position sharing the element (silently wrong). A row of an
    expanded tensor repeats no location itself, but the other rows share its memory: a write to
    it changes them all (silently wrong), where it does not raise. The outputs
    of `chunk()`/`split()`/`unbind()` of a graph tensor are views autograd cannot rebase: a
    write raises "Output 1 of SplitBackward0 is a view and is being modified inplace" on both
    devices (NVIDIA H100, measured). `fill_` and `zero_` of a whole expanded tensor succeed and
    are not reported (of a part, they change the other rows too).

    ## Example
    ```python
    import torch

    def positions(length: int, batch: int, offset: torch.Tensor):
        ids = torch.arange(length).expand(batch, -1)
        ids += offset
        return ids
    ```

    ## Use instead
    ```python
    import torch

    def positions(length: int, batch: int, offset: torch.Tensor):
        ids = torch.arange(length).expand(batch, -1)
        ids = ids + offset
        return ids
    ```
    or `.clone()` the expanded tensor (or the `chunk()` output) before writing it.

    ## Fix safety
    Unsafe: the out-of-place form binds a new tensor; where the write was meant to reach the
    tensor the view came from, that tensor no longer changes. None for an attribute that may
    hold a parameter (`self.proj.weight`): a module refuses a plain tensor assigned to a
    parameter's name.
    """

    code = "TEN209"
    fix_safety = "unsafe"
    summary = "in-place write to an `expand()`ed tensor or a `chunk()`/`split()`/`unbind()` output raises"
    calls = tuple(sorted(k.INPLACE_METHODS))
    events = ("in-place write",)

    def query(self, model, site) -> None:
        hazards = {}
        for event in model.events.find("write"):
            found = unwritable(event.value)
            if found is None:
                continue
            kind, op = found
            if kind == "overlapping" and type(event.node) is ast.Subscript and not takes_everything(event.node.slice):
                kind = "repeated"  # ``mask[b] = 0``: a part, written as its own view is
                found = kind, op
            method = event.detail.get("method", "")
            if kind == "overlapping" and "uniform_write" in k.role_of("method", method):
                continue  # one value everywhere: measured to succeed (not on a part: the other rows get it too)
            if kind == "split" and not (event.value.grad and event.detail["grad_mode"]):
                continue  # in no graph, or written under no_grad
            hazards[event] = found
        for event in innermost(list(hazards)):
            self._report(site, event, *hazards[event])

    def _report(self, site, event, kind, op) -> None:
        where = write_site(site, event)
        written = site.node_of(where.written) if where is not None else None
        if written is None:
            return
        part = site.node_of(event.node) if kind == "repeated" and type(event.node) is ast.Subscript else None
        subject = short_source(site, part if part is not None else written)  # ``mask[b] = 0``: the part written
        # a loop variable rebound out of place no longer writes the rows it was meant to change
        # (not a part of an expanded tensor: assigned back, the part is written again)
        fix, code = out_of_place_fix(where.node, event.value) if op != ITERATION and kind != "repeated" else (None, "")
        if fix is not None:
            use = f"use {code}"
        elif kind in ("overlapping", "repeated"):
            use = "clone() it where it is made"
        else:
            use = "compute it out of place (or write the whole tensor under torch.no_grad() to initialise it)"
        if kind == "repeated":
            message = (f"'{subject}' is a part of what {op} made: this in-place write raises 'more than one element "
                       "of the written-to tensor refers to a single memory location' or, where the part repeats no "
                       f"location, silently changes the other positions sharing its memory; {use}")
        elif kind == "overlapping":
            if "unmasked_overlap" in k.role_of("method", where.method):
                effect = ("does not raise on CPU: it fills every position that shares the masked element "
                          "(silently wrong)")
            else:
                effect = "raises 'more than one element of the written-to tensor refers to a single memory location'"
            message = f"'{subject}' is made by {op}: this in-place write {effect}; {use}"
        else:
            message = (f"'{subject}' is an output of {op} of a tensor in an autograd graph: this in-place write "
                       f"raises 'Output ... is a view and is being modified inplace'; {use}")
        site.report(self.code, where.node, message, fix)


RULES = (UnwritableView(),)
