"""TEN1xx: copying a tensor the wrong way."""

from typing import Optional

import libcst as cst

from flake8_tensorcopy.analysis.scope import TENSOR, TENSOR_SEQ, dotted_name
from flake8_tensorcopy.analysis.statements import small_statements, suite_statements
from flake8_tensorcopy.fixes import Fix, bare, keep_parentheses, torch_module
from flake8_tensorcopy.rules.base import Rule, argument, on_accelerator, suggestion
from flake8_tensorcopy.rules.ten101 import finish as _finish, moves_and_grad as _moves_and_grad


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
    to cut.

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
    reads = ("stores on self",)  # ``layer.aux_loss``: what the file's classes store on self

    def check_call(self, call: cst.Call, analysis) -> None:
        constructor = analysis.qualname(call.func)
        if constructor not in ("torch.tensor", "torch.as_tensor", "torch.Tensor"):
            return
        data = argument(call, 0, "data")
        if data is None or analysis.kind_of(data) != TENSOR_SEQ:
            return
        hazard = _graph_or_device(call, data, analysis)
        if hazard is None:
            return  # integer indices, constants, detached values: no graph to cut, no device to leave
        fix = self._fix(call, data, analysis)
        if fix is not None:
            use = suggestion(analysis, fix.replacement, data)
        elif _may_be_empty(data):
            use = "torch.stack(...) where it cannot be empty (torch.stack([]) raises; no automatic fix)"
        else:
            use = "torch.stack(...)"
        analysis.report(
            self.code,
            call,
            f"{constructor}() over tensors that {hazard} builds a new leaf from their values "
            f"(no grad_fn, warns or raises); use {use}",
            fix,
        )

    def _fix(self, call: cst.Call, data, analysis) -> Optional[Fix]:
        if type(data) not in (cst.List, cst.Tuple) or not data.elements or not all(
            type(element) is cst.Element and analysis.is_zero_dim(element.value) for element in data.elements
        ):
            return None  # not all known 0-d: torch.stack would change the shape, or raise
        split = _moves_and_grad(call.args, data)
        module = torch_module(analysis, call.func)
        if split is None or module is None:
            return None
        stacked = cst.Call(func=cst.Attribute(value=module, attr=cst.Name("stack")), args=[cst.Arg(bare(data))])
        return Fix(keep_parentheses(call, _finish(stacked, *split)), safe=False)


def _graph_or_device(call: cst.Call, data: cst.BaseExpression, analysis) -> Optional[str]:
    """What makes converting these elements a hazard: one may require grad, or live on an
    accelerator (then, without ``device=``, the result is built on the CPU)."""
    state = analysis.grad_of(data)
    if state:
        return f"may require grad ({state.evidence})"
    elements = bare(data).elements if type(bare(data)) in (cst.List, cst.Tuple) else ()
    values = [element.value for element in elements if type(element) is cst.Element]
    if any(on_accelerator(value) for value in values):
        return "live on an accelerator"
    if argument(call, KEYWORD_ONLY, "device") is not None or analysis.function is None:
        return None
    for value in values:
        if type(value) is cst.Name and analysis.kind_of(value) == TENSOR:
            placed = _placed_on_device(value.value, analysis)
            if placed is not None:
                return f"may live on an accelerator ('{value.value}' is made with {placed}: the result is built on the CPU)"
    return None


KEYWORD_ONLY = -1  # as ``argument``'s position: only the keyword is looked at


def _placed_on_device(name: str, analysis) -> Optional[str]:
    """How every assignment of ``name`` in the function being walked puts it on a device that
    is not the CPU (``torch.zeros((), device=device)``, ``x.to(device)``, ``x.cuda()``), if all do."""
    placements = [_device_placement(small.value, analysis)
                  for small in small_statements(suite_statements(analysis.function.body))
                  if type(small) is cst.Assign and any(
                      type(target.target) is cst.Name and target.target.value == name for target in small.targets)]
    return placements[0] if placements and all(placements) else None


def _device_placement(value: cst.BaseExpression, analysis) -> Optional[str]:
    """``device=d`` (``d`` not the CPU) of a torch call, ``.to(d)`` or ``.cuda()`` along a chain of
    tensor methods, as the code spells it."""
    while type(value) is cst.Call:
        device = argument(value, KEYWORD_ONLY, "device")
        func = value.func
        method = func.attr.value if type(func) is cst.Attribute else None
        if device is None and method == "to":
            device = argument(value, 0, "device")
        if device is None and method in ("cuda", "cpu"):
            return ".cuda()" if method == "cuda" else None
        if device is not None:
            return _not_cpu(device, analysis)
        if type(func) is not cst.Attribute or analysis.qualname(func) is not None:
            return None
        value = func.value
    return None


def _not_cpu(device: cst.BaseExpression, analysis) -> Optional[str]:
    """``device=...`` as written when it names a device that may be an accelerator: a string
    naming one, or a name or attribute spelled as a device (``device``, ``x.device``)."""
    if type(device) is cst.SimpleString:
        return f"device={device.value}" if not device.evaluated_value.startswith("cpu") else None
    spelled = dotted_name(device)
    if spelled is None or "device" not in spelled.rsplit(".", 1)[-1].lower():
        return None
    return f"device={spelled}"


def _may_be_empty(data: cst.BaseExpression) -> bool:
    """Anything but a literal list or tuple with elements (a name, a comprehension) may be empty."""
    data = bare(data)
    return type(data) not in (cst.List, cst.Tuple) or not data.elements


RULES = (
    TensorOfTensorList(),
)
