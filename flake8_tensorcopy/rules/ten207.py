"""TEN207: ``copy.copy(t)`` kept while one side is written, as a query of the model."""

from typing import Optional

import libcst as cst

from flake8_tensorcopy.fixes import Fix, bare, chain, detached_copy
from flake8_tensorcopy.rules.sharing import AliasRule, unsafe


class ShallowCopyShares(AliasRule):
    """
    ## What it does
    Flags `copy.copy(t)` of a tensor when one side is then written in place and the other
    observed.

    ## Why is this bad?
    `copy.copy` of a tensor is a new Python object over the same storage: writes show through.

    ## Example
    ```python
    import copy

    import torch

    def keep(x: torch.Tensor):
        kept = copy.copy(x)
        x.mul_(0)
        return kept
    ```

    ## Use instead
    ```python
    import copy

    import torch

    def keep(x: torch.Tensor):
        kept = x.detach().clone()
        x.mul_(0)
        return kept
    ```

    ## Fix safety
    Unsafe: the copy is detached (use `t.clone()` where the graph must be kept).
    """

    code = "TEN207"
    kinds = ("shallow_copy",)
    summary = "`copy.copy(t)` shares t's storage, then one side is written; use `t.detach().clone()`"
    use_instead = "a .detach().clone() of its argument"

    def fix(self, node, alias, site) -> Optional[Fix]:
        if type(node) is not cst.Call or len(node.args) != 1:
            return None
        source = bare(node.args[0].value)
        # Keep the graph where the tensor requires grad (copy.copy kept it too).
        return unsafe(node, chain(source, "clone") if alias.value.grad else detached_copy(source))


RULE = ShallowCopyShares()
