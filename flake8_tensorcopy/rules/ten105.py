"""TEN105: a ``*_like`` buffer filled from the tensor it was shaped on, as a query of the
model: the buffer's ``like:`` fact, the ``copy_`` call event, the writes between."""

from typing import Optional

import libcst as cst

from flake8_tensorcopy.fixes import Fix, detached, detached_copy, keep_parentheses, positional
from flake8_tensorcopy.model.places import place_of
from flake8_tensorcopy.model.transfer import like_fact
from flake8_tensorcopy.model.values import Evidence
from flake8_tensorcopy.rules.base import Rule, short_source, suggestion


def copies_into_like_buffers(model):
    """(the ``copy_`` call event, its source's place) where the receiver is a fresh ``*_like``
    buffer shaped on the very tensor copied into it, grad is recorded there, and nothing wrote
    that tensor since the buffer was made (then it is a work buffer refilled, not a copy)."""
    writes = {id(event.node): event for event in model.events.find("write")}
    allocations = {(event.node.lineno, event.node.col_offset): event for event in model.events.find("call")}
    seen = set()
    for event in model.events.find("call"):
        node = event.node
        if event.detail.get("callee") != "copy_" or id(node) in seen or not event.detail["grad_mode"]:
            continue
        seen.add(id(node))
        written = writes.get(id(node))
        arguments = event.detail.get("arguments", ())
        place = place_of(node.args[0]) if node.args else None
        if written is None or not arguments or place is None or like_fact(place, arguments[0]) not in written.value.facts \
                or _surely_without_grad(arguments[0]):
            continue  # not a copy of the tensor it was shaped on, or of one that cannot require grad
        if _source_written_since_allocation(model, written, arguments[0], allocations):
            continue
        yield event, place


def _surely_without_grad(value) -> bool:
    """A tensor known for sure (made by torch, or by what every caller of the file passes) to
    require no grad (``torch.randn(3)``); not one known only by an annotation or a name."""
    known = value.evidence("kind")
    return not value.grad and (known is not None and known.strong or value.evidence("grad") is Evidence.CALLERS)


def _source_written_since_allocation(model, copy, source, allocations) -> bool:
    for site in copy.value.storages:
        allocation = allocations.get(site)
        if allocation is not None and any(
                write.storages & source.storages for write in model.events.writes_between(allocation, copy)):
            return True
    return False


class CopyIntoLikeBuffer(Rule):
    """
    ## What it does
    Flags `torch.empty_like(t).copy_(t)` (and `zeros_like`/`ones_like`), in one expression or
    as `buf = torch.empty_like(t)` followed at once by `buf.copy_(t)`, used as a copy of `t`,
    where `t` may require grad (a module's output, arithmetic on parameters; what the file's
    callers pass decides for a parameter). Silent under `torch.no_grad()`/`torch.inference_mode()`,
    where no graph is recorded, and for a tensor that cannot require grad.

    ## Why is this bad?
    `copy_` is differentiable: when `t` requires grad, the "copy" is a non-leaf in t's graph
    and gradients flow back through it into `t`. It is also two kernels where one does.

    ## Example
    ```python
    import torch
    from torch import nn

    def features(layer: nn.Linear, x: torch.Tensor):
        out = layer(x)
        return torch.empty_like(out).copy_(out)
    ```

    ## Use instead
    ```python
    import torch
    from torch import nn

    def features(layer: nn.Linear, x: torch.Tensor):
        out = layer(x)
        return out.detach().clone()
    ```

    ## Fix safety
    Unsafe: the fixed copy is detached, so gradients no longer flow into `t` through it.
    """

    code = "TEN105"
    summary = "`torch.empty_like(t).copy_(t)` as a copy stays in t's graph; use `t.detach().clone()`"
    calls = ("copy_",)

    def query(self, model, site) -> None:
        for event, _place in copies_into_like_buffers(model):
            call = site.node_of(event.node)
            if call is None or type(call.func) is not cst.Attribute or not call.args:
                continue
            source = call.args[0].value
            buffer = call.func.value
            if type(buffer) is cst.Call:
                fix = self._copy_fix(call, buffer, source)
            else:  # two statements: the buffer stays; what is copied into it is detached
                detached_source = call.args[0].with_changes(value=detached(source))
                fix = Fix(call.with_changes(args=[detached_source] + list(call.args[1:])), safe=False)
            name = short_source(site, source)
            use = suggestion(site, fix.replacement if fix else detached_copy(source), source)
            site.report(
                self.code,
                call,
                f"copying '{name}' into a *_like buffer keeps the copy in {name}'s autograd graph; use {use}",
                fix,
            )

    def _copy_fix(self, call: cst.Call, buffer: cst.Call, source) -> Optional[Fix]:
        clone_args = []
        for arg in buffer.args[1:]:
            if arg.keyword is None or arg.keyword.value != "memory_format":
                return None  # dtype=/device= make it a conversion, not a plain copy
            clone_args.append(arg)
        new = cst.Call(func=cst.Attribute(value=detached(source), attr=cst.Name("clone")), args=positional(clone_args))
        return Fix(keep_parentheses(call, new), safe=False)


RULES = (CopyIntoLikeBuffer(),)
