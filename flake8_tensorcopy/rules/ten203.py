"""TEN203: ``t.detach()`` / ``t.data`` kept while one side is written, as a query of the model."""

from typing import Optional

import libcst as cst

from flake8_tensorcopy.fixes import Fix, bare, detached_copy, method
from flake8_tensorcopy.rules.sharing import AliasRule, source_local, unsafe


class DetachShares(AliasRule):
    """
    ## What it does
    Flags `t.detach()` and `t.data` kept as a separate value while `t` or the result is
    written in place. Not a handle to a module's parameter through which all of it is set from
    other values (`w = self.fc.weight.data; w.normal_(0, 0.02)`, `nn.init.zeros_(b)`): that is
    the parameter's initialisation, the purpose of the handle.

    ## Why is this bad?
    `detach()` only cuts the graph: the result shares t's storage. A "backup" taken with it
    follows every optimizer step, so restoring it restores nothing.

    ## Example
    ```python
    import torch

    def step(w: torch.Tensor, g: torch.Tensor):
        backup = w.detach()
        w.sub_(g)
        return backup
    ```

    ## Use instead
    ```python
    import torch

    def step(w: torch.Tensor, g: torch.Tensor):
        backup = w.detach().clone()
        w.sub_(g)
        return backup
    ```

    ## Fix safety
    Unsafe: the result becomes a copy, which changes code that wanted to write through it.
    """

    code = "TEN203"
    kinds = ("detach",)
    summary = "`t.detach()`/`t.data` shares storage with `t`, then one side is written; use `.detach().clone()`"
    use_instead = "a .detach().clone() of it"

    def hazard(self, model, sharing) -> bool:
        """Not ``nn.Parameter(weight)`` of memory the function allocated itself when only the
        parameter is observed afterwards (``weight = torch.randn(n); self.w = nn.Parameter(weight)``,
        initialised later): no one else holds that memory. A caller's tensor made a parameter
        (``self.prompt = nn.Parameter(init)``) is still the caller's (review F16, F17)."""
        alias = sharing.alias
        return not (alias.detail["op"].endswith("Parameter()") and source_local(model, alias)
                    and not sharing.observation.startswith(("read", "reads")))

    def fix(self, node, alias, site) -> Optional[Fix]:
        if type(node) is cst.Attribute and node.attr.value == "data":
            return unsafe(node, detached_copy(node.value))
        if alias.detail["op"].endswith("Parameter()") and type(node) is cst.Call and node.args:
            # ``nn.Parameter(init)``: a parameter of its own, made of a copy
            first = node.args[0]
            return unsafe(node, node.with_changes(args=[first.with_changes(value=detached_copy(first.value))]
                                                  + list(node.args[1:])))
        return unsafe(node, method(bare(node), "clone"))


RULE = DetachShares()
