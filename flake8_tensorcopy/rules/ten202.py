"""TEN202: ``torch.from_numpy(a)`` kept while one side is written, as a query of the model."""

from typing import Optional

import libcst as cst

from flake8_tensorcopy.fixes import Fix, bare, method
from flake8_tensorcopy.model import name_bound_to
from flake8_tensorcopy.rules.sharing import AliasRule, Sharing, fills_a_blank_buffer, handed_back, unsafe


class FromNumpyShares(AliasRule):
    """
    ## What it does
    Flags `torch.from_numpy(a)`, `torch.as_tensor(a)` and `torch.asarray(a)` on an ndarray when
    the tensor and the array are then written and read as if they were separate.

    ## Why is this bad?
    The tensor uses the array's buffer: an in-place write to either is seen through the other,
    e.g. a data-augmentation step on the array silently changes a tensor already batched.

    ## Example
    ```python
    import numpy as np
    import torch

    def batch():
        a = np.zeros(4, dtype=np.float32)
        t = torch.from_numpy(a)
        a += 1
        return t
    ```

    ## Use instead
    ```python
    import numpy as np
    import torch

    def batch():
        a = np.zeros(4, dtype=np.float32)
        t = torch.tensor(a)
        a += 1
        return t
    ```

    ## Fix safety
    Unsafe: the tensor becomes a copy, which changes code that relied on the sharing.
    """

    code = "TEN202"
    kinds = ("from_numpy",)
    summary = "`torch.from_numpy(a)` shares memory with `a`, then one side is written; use `torch.tensor(a)`"
    use_instead = "torch.tensor() of the array"

    def hazard(self, model, sharing: Sharing) -> bool:
        return not fills_a_blank_buffer(sharing)

    def fix(self, node, alias, site) -> Optional[Fix]:
        """``torch.tensor(a)`` in the file's own spelling of torch (no import added); a chain
        ending in another operation gets ``.clone()``."""
        if type(node) is not cst.Call:
            return None
        if alias.detail["operation"] != "from_numpy" or handed_back(alias):
            return unsafe(node, method(bare(node), "clone"))
        if type(node.func) is cst.Attribute:
            module = node.func.value
        else:
            name = name_bound_to(site.tree, "torch")
            if name is None:
                return None
            module = cst.Name(name)
        # ``torch.asarray(a, copy=False)``: only the keywords torch.tensor takes too
        args = [arg for arg in node.args if arg.keyword is None or arg.keyword.value in _TENSOR_KEYWORDS]
        if args and args[-1].comma is not cst.MaybeSentinel.DEFAULT:
            args[-1] = args[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        return unsafe(node, cst.Call(func=cst.Attribute(value=module, attr=cst.Name("tensor")), args=args))


_TENSOR_KEYWORDS = frozenset(("dtype", "device", "requires_grad", "pin_memory"))


RULE = FromNumpyShares()
