"""TEN303: ``.grad`` read on a non-leaf that never called ``retain_grad()``."""

from flake8_tensorcopy.model.places import place_of
from flake8_tensorcopy.model.transfer import RETAINS_GRAD
from flake8_tensorcopy.rules.base import Rule


class GradOfNonLeaf(Rule):
    """
    ## What it does
    Flags `.grad` read on a tensor that is not a leaf (made by `clone()`, arithmetic, a view,
    a layer's output, or `.to()`/`.cuda()`/`.float()` of a leaf that requires grad) and never
    called `retain_grad()`.

    ## Why is this bad?
    Only leaves get `.grad` from `backward()`: on a non-leaf it is `None`, with the warning
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed", on CPU and
    on CUDA alike (NVIDIA H100, measured). Moves differ by device: `w.cuda()` of a CPU leaf is
    a copy, a non-leaf whose `.grad` stays `None`, while `w.to("cuda")` of a leaf already on
    the GPU returns the leaf itself, whose `.grad` is filled.

    ## Example
    ```python
    import torch

    def scaled_grad():
        w = torch.ones(3, requires_grad=True)
        y = w * 2
        y.sum().backward()
        return y.grad
    ```

    ## Use instead
    ```python
    import torch

    def scaled_grad():
        w = torch.ones(3, requires_grad=True)
        y = w * 2
        y.retain_grad()
        y.sum().backward()
        return y.grad
    ```
    or read the leaf's `.grad` (`w.grad`).

    ## Fix safety
    No automatic fix: whether to keep the non-leaf's gradient or read the leaf's is a choice.
    """

    code = "TEN303"
    fix_safety = "none"
    summary = "`.grad` of a non-leaf tensor is always None; call `retain_grad()` or read the leaf"
    attributes = ("grad",)

    def query(self, model, site) -> None:
        for event in model.events.find("attribute"):
            base = event.detail["base"]
            if event.detail["attribute"] != "grad" or event.detail["store"] or not base.graph:
                continue
            name = place_of(event.node.value)
            node = site.node_of(event.node) if name is not None and RETAINS_GRAD not in base.facts else None
            if node is not None:
                site.report(self.code, node,
                            f"{name}.grad is None: '{name}' is not a leaf (it was computed from tensors that require grad); "
                            f"call {name}.retain_grad() before backward() or read the leaf's .grad")


RULES = (GradOfNonLeaf(),)
