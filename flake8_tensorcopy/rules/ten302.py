"""TEN302: ``.numpy()`` of a tensor that requires grad or lives on an accelerator."""

import ast

import libcst as cst

from flake8_tensorcopy.model.values import Evidence
from flake8_tensorcopy.fixes import Fix, bare, chain
from flake8_tensorcopy.rules.base import Rule, short_source, suggestion


def grad_evidence(value) -> str:
    """Why a value requires grad, in a message's words."""
    if value.graph:
        return "it was computed from tensors that require grad"
    if value.evidence("kind") is Evidence.MODULE_CALL:
        return "a parameter of a module"
    return "a leaf that requires grad"


class NumpyOfGradTensor(Rule):
    """
    ## What it does
    Flags `.numpy()` on a tensor that may require grad (a parameter, a forward output,
    arithmetic on those) or that lives on an accelerator (`x.cuda().numpy()`).

    ## Why is this bad?
    It raises. On CPU, for a tensor that requires grad, where grad mode is on: "Can't call
    numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead." (RuntimeError;
    under `torch.no_grad()` and in a custom `autograd.Function`'s `forward` it converts). On CUDA the device
    check comes first, whether or not it requires grad: "can't convert cuda:0 device type
    tensor to numpy" (TypeError; NVIDIA H100, measured). Code that passed on a CPU-only test
    box fails in training.

    ## Example
    ```python
    from torch import nn

    def weights(layer: nn.Linear):
        return layer.weight.numpy()
    ```

    ## Use instead
    ```python
    from torch import nn

    def weights(layer: nn.Linear):
        return layer.weight.detach().cpu().numpy()
    ```

    ## Fix safety
    Safe: `.detach()` (and `.cpu()`) only remove the error; the values are the same. The call
    rewritten is its own evidence: a list or an ndarray has no `.numpy()`, so where an
    annotation lied the original raises as the fixed form does.
    """

    code = "TEN302"
    fix_safety = "safe"
    summary = "`.numpy()` on a tensor that requires grad (or is on a GPU) raises; add `.detach().cpu()`"
    calls = ("numpy",)

    def query(self, model, site) -> None:
        """The model's host reads by ``.numpy()`` whose tensor requires grad or is off the host."""
        reads = {id(event.node): event for event in model.events.find("read")
                 if event.detail.get("value_read") == "numpy"}
        for call in model.events.find("call"):
            method = call.detail.get("callee") == "numpy" and type(call.node.func) is ast.Attribute  # not numpy(t)
            read = reads.get(id(call.node.func.value)) if method else None
            if read is None or any(keyword.arg == "force" for keyword in call.node.keywords):
                continue
            value = read.value
            if value.grad and read.detail["grad_mode"]:  # (under ``no_grad`` it converts: the check needs grad mode)
                reason = f"it requires grad ({grad_evidence(value)})"
            elif value.device - {"cpu"}:
                reason = "it lives on an accelerator"
            else:
                continue
            node = site.node_of(call.node)
            if node is not None:
                self._report(site, node, reason)

    def _report(self, site, call: cst.Call, reason: str) -> None:
        receiver = call.func.value
        inner = bare(receiver)
        if type(inner) is cst.Call and type(inner.func) is cst.Attribute and inner.func.attr.value == "cpu":
            inner = inner.func.value  # ``x.cpu().numpy()``: detach before the existing move
        fixed = call.with_changes(func=call.func.with_changes(value=chain(inner, "detach", "cpu")))
        site.report(self.code, call,
                    f"{short_source(site, receiver)}.numpy() raises because {reason}; "
                    f"use {suggestion(site, fixed, receiver)}",
                    Fix(fixed, safe=True))


RULES = (NumpyOfGradTensor(),)
