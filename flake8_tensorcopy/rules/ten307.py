"""TEN307: an in-place write to a tensor an earlier recorded operation saved for backward."""

import ast
from typing import Optional

from flake8_tensorcopy import knowledge as k
from flake8_tensorcopy.model.values import holds_a_graph
from flake8_tensorcopy.rules.base import Rule, short_source
from flake8_tensorcopy.rules.writes import innermost, memory_of, out_of_place_fix, write_site

_SYMBOLS = {ast.Mult: "*", ast.Div: "/", ast.MatMult: "@", ast.Pow: "**", ast.Add: "+", ast.Sub: "-"}


class WriteToSavedTensor(Rule):
    """
    ## What it does
    Flags an in-place write (a method, `+=`, an indexed assignment, a layer built with
    `inplace=True`, through `.detach()`, `.data` or a view) to a tensor that an earlier recorded operation saved for backward,
    before the backward that needs it: `y = torch.sigmoid(x); y.mul_(2)`,
    `h = conv(x); x.masked_fill_(mask, 0)`. Which operations save their inputs or their
    output is probed from torch (`scripts/generate_torch_tables.py`). Where TEN301 reports the
    same write through `.data`, TEN301 alone speaks; where TEN209 reports it (an output of
    `unbind`/`split` of a graph tensor), the write raises at once, and TEN209 alone speaks.

    ## Why is this bad?
    backward raises "one of the variables needed for gradient computation has been modified
    by an inplace operation", also when the write ran under `torch.no_grad()` (measured);
    through `.data` it does not raise and computes **wrong gradients**. The saving operation
    only has to be recorded: `nn.Conv1d` saves its input for the weight's gradient even when
    that input does not require grad. A method of the file writing what its object's `forward`
    kept on `self` (`model.drop_padding(mask)` between the forward and its backward) is reported
    at its call. Reported when the write comes before a backward in the
    same function or the function returns the graph to its caller; a `forward`'s output kept on
    `self` (a non-leaf, not a parameter or buffer) that it saved counts as saved in the object's
    other methods, a subclass's included, where they hand back a graph or run a backward. Not
    where grad mode is off by a test (`if not torch.is_grad_enabled():`, until a
    `torch.enable_grad()` block) or in a function every caller of the file runs with grad off
    (a cached decoding step called from an `@torch.inference_mode()` generate loop), nor, by
    convention, on a path the module takes only in eval
    mode (`if not self.training:`, the rest of a method after `if self.training: return ...`):
    code written for inference. A backward through a module in eval mode (frozen norms,
    saliency maps) is not checked there; a method that runs a backward itself (test-time
    adaptation) is, for what its eval path computes.

    ## Example
    ```python
    import torch

    def gate_penalty(scores):
        gates = torch.sigmoid(scores.requires_grad_())
        gates *= 2
        return gates.sum()
    ```

    ## Use instead
    ```python
    import torch

    def gate_penalty(scores):
        gates = torch.sigmoid(scores.requires_grad_())
        gates = gates * 2
        return gates.sum()
    ```

    ## Fix safety
    Unsafe: the out-of-place form binds a new tensor; other names of the old one no longer
    see the change. None for an attribute that may hold a parameter (`self.proj.weight`): a
    module refuses a plain tensor assigned to a parameter's name.
    """

    code = "TEN307"
    fix_safety = "unsafe"
    summary = "in-place write to a tensor saved for backward: backward raises (through `.data`: wrong gradients)"
    calls = tuple(sorted(k.INPLACE_METHODS | k.METADATA_INPLACE)) + ("backward", "grad")
    events = ("in-place write",)
    reads = ("callers",)  # a method of the file writing what its object's forward saved, called before the backward
    # a write through ``.data`` that TEN301 reports, a write that raises at once (TEN209): their codes for that site
    yields_to = ("TEN209", "TEN301")

    def query(self, model, site) -> None:
        events = model.events
        # a change of shape or strides (``retag``) counts as a write for autograd's version counter
        writes = [event for event in events.find("write") + events.find("retag") if event.detail["saved"]]
        if not writes:
            return
        saves = events.find("save")
        # (not a generator's own backward between two items: it never sees the graphs the loop body builds)
        backwards = [event for event in events.find("backward") if not event.detail.get("resumed")]
        returns = [event for event in events.find("return") if carries_graph(event.value)]
        reported = set()
        for write in innermost(writes):
            saving = _saving(model, write, saves)
            if saving is None or id(write.node) in reported:
                continue  # (a call writing two of its object's tensors that are one memory: one finding)
            if saving.detail.get("what") == "indices" and not _values_used(events, saving):
                continue  # ``_, predicted = outputs.max(1)``: no backward runs through values never read
            # what an earlier forward saved is needed by a backward this method runs, or by the
            # backward of a graph it hands back (not of ``return self.weight``, a parameter)
            handed = returns if saving.function is write.function else [
                event for event in returns if holds_a_graph(event.value)]
            # (a call that both writes and backpropagates, ``self._train_batch()``: its backward is of
            # the graph it builds itself, not one an earlier call saved)
            if not any(events.after(write, later) and later.node is not write.node for later in backwards + handed):
                continue  # no backward that needs it follows, and no graph goes back to a caller
            reported.add(id(write.node))
            self._report(site, write, saving)

    def _report(self, site, write, saving) -> None:
        where = write_site(site, write, helpers=True)
        if where is None:
            return
        root = site.node_of(memory_of(where.written))
        shown = _operation(site, saving)
        if root is None or shown is None:
            return
        name = where.held or short_source(site, root)
        through_data = "unversioned" in write.value.facts
        by_helper = type(write.node) is ast.Call and not where.method  # a function of the file writes it
        fix, code = (None, "") if through_data or by_helper else out_of_place_fix(where.node, write.value)
        if fix is not None:
            use = f"use {code}"
        elif write.value.grad and not write.value.graph:  # a parameter: its update belongs after the backward
            use = "write it after the backward that needs it, as an optimizer step does"
        else:
            use = f"compute it out of place or write a {name}.clone()"
        if through_data:
            effect = "through .data backward does not raise but computes wrong gradients silently"
        else:
            effect = ("backward raises 'one of the variables needed for gradient computation has been modified by "
                      "an inplace operation'")
        what = saving.detail["what"]
        if "outputs" in saving.detail:  # a helper that saved both: which of them this write reaches
            what = "output" if write.detail["saved"] & saving.detail["outputs"] else "input"
        helper = site.node_of(write.node.func) if by_helper else None
        by = f" by {short_source(site, helper)}()" if helper is not None else ""
        site.report(
            self.code, where.node,
            f"'{name}' was saved for backward by {shown} on line {saving.line} (its {what}) "
            f"and is written in place{by} before that backward: {effect}; {use}",
            fix)


def carries_graph(value) -> bool:
    """Whether a returned value may hand a graph to the caller (itself, or an item)."""
    if value is None:
        return False
    return value.grad or value.graph or any(carries_graph(item) for _, item in value.items or ())


def _saving(model, write, saves):
    """The recorded operation that saved what ``write`` writes, the latest before it (one of
    the class's ``forward`` for a write in another method of the object)."""
    events = model.events
    found = [save for save in saves if save.detail["storages"] & write.detail["saved"] and (
        events.after(save, write) or _by_an_earlier_forward(model, save, write))]
    if not found:
        return None
    earlier = [save for save in found if save.line <= write.line]
    return max(earlier or found, key=lambda save: (save.line, save.order))


def _by_an_earlier_forward(model, save, write) -> bool:
    """Whether ``save`` ran in the ``forward`` of the class whose other method makes ``write``
    (its own or one it inherits from a base class of the file): what that forward keeps on
    ``self`` is saved when the method runs after it."""
    owner = getattr(write.function, "owner", None)
    return owner is not None and save.function is not write.function \
        and save.function is model.method_of(owner.name, "forward")


def _operation(site, save) -> Optional[str]:
    """How a message names the operation that saved: ``torch.sigmoid()``, ``'@' (matmul)``,
    ``.relu()``, ``self.conv (torch.nn.Conv1d)``, ``helper()``."""
    node, op = save.node, save.detail["op"]
    if type(node) is ast.BinOp:
        return f"'{_SYMBOLS[type(node.op)]}' ({op.rpartition('.')[2]})"
    if type(node) is not ast.Call:
        return None
    if op.startswith("local:"):
        func = site.node_of(node.func)
        return f"{short_source(site, func)}()" if func is not None else None
    if op.startswith("torch.Tensor."):
        return f".{op[len('torch.Tensor.'):]}()"
    if op == "module" or op.startswith("torch.nn.") and op.rpartition(".")[2][:1].isupper():
        func = site.node_of(node.func)
        if func is None:
            return None
        layer = f" ({op})" if op != "module" else ""
        return f"{short_source(site, func)}{layer}"
    return f"{op}()"


RULES = (WriteToSavedTensor(),)


def _values_used(events, saving) -> bool:
    """Whether the values of a reduction that saved its indices (``best, label = x.max(1)``) are
    read after it: values bound to ``_`` and never read are in no backward's graph."""
    storages = saving.value.storages if saving.value is not None else frozenset()
    return any(read.value is not None and read.value.storages & storages and read.node is not saving.node
               and events.after(saving, read) for read in events.find("read"))
