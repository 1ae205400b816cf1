"""TEN201: ``t.numpy()`` / ``np.asarray(t)`` kept while one side is written, as a query of the model."""

from typing import Optional

import libcst as cst

from flake8_tensorcopy.fixes import Fix, bare, method
from flake8_tensorcopy.rules.sharing import AliasRule, Sharing, fills_a_blank_buffer, unsafe


class NumpyShares(AliasRule):
    """
    ## What it does
    Flags `t.numpy()` (also after `.detach()`/`.cpu()`, and `np.asarray(t)`) when the array
    and the tensor are written and read as if they were separate.

    ## Why is this bad?
    On the CPU the array and the tensor share one buffer, both ways: writing one changes the
    other. `.cpu()` is a no-op on a CPU tensor and `numpy(force=True)` still shares there, so
    code that works on a GPU machine corrupts data on a laptop.

    ## Example
    ```python
    import torch

    def scaled(t: torch.Tensor):
        arr = t.numpy()
        arr *= 2  # the caller's t is doubled too
        return arr
    ```

    ## Use instead
    ```python
    import torch

    def scaled(t: torch.Tensor):
        arr = t.numpy().copy()
        arr *= 2
        return arr
    ```

    ## Fix safety
    Unsafe: the array no longer aliases the tensor, which changes code that wanted the sharing.
    """

    code = "TEN201"
    kinds = ("numpy",)
    summary = "`t.numpy()` shares memory with `t`, then one side is written; use `.numpy().copy()`"
    use_instead = "a .numpy().copy() or np.array() of the tensor"

    def hazard(self, model, sharing: Sharing) -> bool:
        return not fills_a_blank_buffer(sharing)

    copy_method = "copy"

    def fix(self, node, alias, site) -> Optional[Fix]:
        """``.copy()`` of the array; ``np.asarray(t)`` becomes ``np.array(t)``, which copies."""
        if type(node) is not cst.Call:
            return None
        if alias.detail["op"] == "np.asarray()":
            if type(node.func) is not cst.Attribute:
                return None
            return unsafe(node, node.with_changes(func=node.func.with_changes(attr=cst.Name("array")), lpar=[], rpar=[]))
        return unsafe(node, method(bare(node), "copy"))


RULE = NumpyShares()
