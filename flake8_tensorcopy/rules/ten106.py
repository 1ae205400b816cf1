"""TEN106: ``torch.tensor([...])`` over tensors that may require grad or live on an
accelerator, as a query of the model's call events and the container's items."""

import ast
from typing import Optional

import libcst as cst

from flake8_tensorcopy import knowledge as k
from flake8_tensorcopy.fixes import Fix, bare, keep_parentheses
from flake8_tensorcopy.model.transfer import UNPLACED, ZERO_DIM
from flake8_tensorcopy.rules.base import Rule, argument, call_argument, suggestion
from flake8_tensorcopy.rules.ten101 import finish, moves_and_grad

CONSTRUCTORS = frozenset(("torch.tensor", "torch.as_tensor", "torch.Tensor"))
ACCELERATORS = frozenset(("cuda", "mps", "xla"))
SEQUENCES = frozenset(("list", "tuple"))
CPU = frozenset(("cpu",))


def _elements(value) -> list:
    return [item for _, item in value.items or () if item.is_tensor]


def hazard(event, data, moved: frozenset) -> Optional[str]:
    """What makes converting these elements a hazard: one may require grad, or lives on an
    accelerator, or (without ``device=``) was placed on a device that may be one, where the
    result is not moved to a device right away (``torch.tensor([...]).to(device)``)."""
    elements = _elements(data)
    grads = [element for element in elements if element.grad]
    if grads:
        evidence = next((element.evidence("grad") for element in grads if element.evidence("grad")), None)
        return "may require grad" + (f" ({evidence.value})" if evidence is not None else "")
    if event.detail.get("keywords", {}).get("device") is not None or id(event.node) in moved:
        return None
    if any(element.device & ACCELERATORS for element in elements):
        return "live on an accelerator"
    if any(element.device == UNPLACED for element in elements):
        return ("may live on an accelerator (made with a device= that may not be the CPU: the result "
                "is built on the CPU)")
    return None


def _moved_to_a_device(model) -> frozenset:
    """The receivers of moves (``.to(...)``, ``.cuda()``: the knowledge table's ``move`` role)
    whose result may lie elsewhere than the CPU: what the constructor built on the CPU goes where
    the code wants it."""
    return frozenset(id(event.node.func.value) for event in model.events.find("call")
                     if type(event.node) is ast.Call and type(event.node.func) is ast.Attribute
                     and "move" in k.role_of("method", event.node.func.attr)
                     and event.value.is_tensor and event.value.device and event.value.device != CPU)


def _torch_spelling(model, call: cst.Call) -> Optional[cst.BaseExpression]:
    """How the file spells torch where ``call`` is (``th`` for ``th.tensor``), else a name the
    file imports torch as; None when it has none (a fix then adds no import)."""
    if type(call.func) is cst.Attribute:
        return bare(call.func.value)
    for name, qual in model.imports.items():
        if qual == "torch":
            return cst.Name(name)
    return None


class TensorOfTensorList(Rule):
    """
    ## What it does
    Flags `torch.tensor([...])`, `torch.as_tensor([...])` and `torch.Tensor([...])` over a list
    or tuple that holds tensors, such as per-step losses collected in a loop.

    ## Why is this bad?
    The constructor reads the tensors' values into a brand-new leaf: the result has no
    `grad_fn`, so a loss built from it does not train anything. It raises for elements with
    more than one value. On CPU it warns ("Converting a tensor with requires_grad=True to a
    scalar may lead to unexpected behavior", once per process) for elements that require
    grad; on CUDA the graph is cut just the same but **silently** (no warning), and without
    `device=` the result of CUDA elements lands on the **CPU** (NVIDIA H100, torch 2.11,
    measured).

    Only where an element may require grad (a loss, a model output, arithmetic on parameters)
    or lives on an accelerator: integer indices, constants and detached values have no graph
    to cut, and a result moved to a device right away (`torch.tensor([...]).to(device)`) is
    where the code wants it.

    ## Example
    ```python
    import torch
    from torch import nn

    def total(w: nn.Parameter):
        return torch.tensor([w.sum(), w.mean()]).sum()
    ```

    ## Use instead
    ```python
    import torch
    from torch import nn

    def total(w: nn.Parameter):
        return torch.stack([w.sum(), w.mean()]).sum()
    ```

    ## Fix safety
    Unsafe: `torch.stack` keeps the graph (that is the point), so gradients now flow; and it
    keeps the elements' device: from CUDA elements `torch.tensor([...])` without `device=`
    built its result on the CPU, `torch.stack` leaves it on CUDA (same values, dtype and shape;
    code that used the result as a CPU tensor, `.numpy()` say, must now move it). Offered
    only for a literal list or tuple whose elements are all known 0-d tensors (full
    reductions such as `x.sum()`, `F.mse_loss(a, b)` with its default reduction, names bound
    to them): `torch.stack` of elements of shape `(1,)` gives shape `(C, 1)` where
    `torch.tensor` gave `(C,)`, and `torch.stack([])` raises where `torch.tensor([])` did not:
    a list that may be empty (a name, a comprehension) gets no fix, and the message says why.
    """

    code = "TEN106"
    summary = "`torch.tensor([...])` over tensors cuts the graph; use `torch.stack([...])`"
    calls = ("tensor", "as_tensor", "Tensor")

    def query(self, model, site) -> None:
        seen = set()
        moved = _moved_to_a_device(model)
        for event in model.events.find("call"):
            constructor = event.detail.get("callee")
            if constructor not in CONSTRUCTORS or id(event.node) in seen:
                continue
            seen.add(id(event.node))
            value = call_argument(event, 0, "data")
            if value is None or value.items is None or not value.kinds <= SEQUENCES:
                continue
            danger = hazard(event, value, moved)
            if danger is None:
                continue  # integer indices, constants, detached values: no graph to cut, no device to leave
            call = site.node_of(event.node)
            data = argument(call, 0, "data") if call is not None else None
            if data is None:
                continue
            fix = self._fix(model, call, data, value)
            if fix is not None:
                use = suggestion(site, fix.replacement, data)
            elif type(bare(data)) not in (cst.List, cst.Tuple) or not bare(data).elements:
                use = "torch.stack(...) where it cannot be empty (torch.stack([]) raises; no automatic fix)"
            else:
                use = "torch.stack(...)"
            site.report(
                self.code,
                call,
                f"{constructor}() over tensors that {danger} builds a new leaf from their values "
                f"(no grad_fn, warns or raises); use {use}",
                fix,
            )

    def _fix(self, model, call: cst.Call, data, value) -> Optional[Fix]:
        """``torch.stack`` of a literal list whose items are all known 0-d tensors: of items of
        shape (1,) it gives (C, 1) where torch.tensor gave (C,), and ``torch.stack([])`` raises."""
        literal = bare(data)
        if type(literal) not in (cst.List, cst.Tuple) or not literal.elements or any(
                type(element) is not cst.Element for element in literal.elements):
            return None
        items = [value.item(str(index)) for index in range(len(literal.elements))]
        if any(item is None or not item.is_tensor or ZERO_DIM not in item.facts for item in items):
            return None
        split = moves_and_grad(call.args, data)
        module = _torch_spelling(model, call)
        if split is None or module is None:
            return None
        stacked = cst.Call(func=cst.Attribute(value=module, attr=cst.Name("stack")), args=[cst.Arg(literal)])
        return Fix(keep_parentheses(call, finish(stacked, *split)), safe=False)


RULES = (TensorOfTensorList(),)
