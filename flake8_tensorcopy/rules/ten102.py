"""TEN102: ``x.new_tensor(t)`` on a tensor, as a query of the model's call events."""

from typing import Optional

import libcst as cst

from flake8_tensorcopy.syntax import dotted_name
from flake8_tensorcopy.fixes import Fix, bare, detached, detached_copy, keep_parentheses, keyword, method, positional
from flake8_tensorcopy.model.values import without_none
from flake8_tensorcopy.rules.base import Rule, argument, call_argument, evidence_note, short_source, suggestion
from flake8_tensorcopy.rules.ten101 import TENSOR, calls_to, finish, moves_and_grad


class NewTensorOfTensor(Rule):
    """
    ## What it does
    Flags `x.new_tensor(t)` when `t` is a tensor.

    ## Why is this bad?
    `new_tensor` always copies and warns like `torch.tensor(t)`, and the copy takes **x's**
    dtype and device, not t's: with an integer `x` a float `t` is silently truncated.

    ## Example
    ```python
    import torch

    def rescale(counts: torch.Tensor, weights: torch.Tensor):
        return counts.new_tensor(weights)
    ```

    ## Use instead
    ```python
    import torch

    def rescale(counts: torch.Tensor, weights: torch.Tensor):
        return weights.detach().to(dtype=counts.dtype, device=counts.device, copy=True)
    ```
    or `t.detach().clone()` when `x` is `t` itself.

    ## Fix safety
    Safe where `t` is surely a tensor (made by a torch API, or proven by use): the fix keeps
    x's dtype and device, so values are unchanged; only the warning goes. Unsafe where only an
    annotation says `t` is one: `x.new_tensor(a_list)` works, `a_list.detach()` raises. (`x`
    itself needs no more evidence: `new_tensor` is a method only tensors have.)
    """

    code = "TEN102"
    fix_safety = "safe"
    summary = "`x.new_tensor(t)` on a tensor copies with x's dtype/device and warns"
    calls = ("new_tensor",)

    def query(self, model, site) -> None:
        for event in calls_to(model, "new_tensor"):
            if type(event.node.func).__name__ != "Attribute":
                continue
            call = site.node_of(event.node)
            data = argument(call, 0, "data") if call is not None else None
            if data is None:
                continue
            value = call_argument(event, 0, "data")
            same = bare(call.func.value).deep_equals(bare(data))
            if not same and (value is None or without_none(value).kinds != TENSOR):
                continue
            # ``t.new_tensor(t)``: new_tensor, a method only tensors have, proves t
            safe, note = (True, "") if same else evidence_note(site, value, data)
            fix = self._fix(call, data, safe)
            if fix is not None:
                use = suggestion(site, fix.replacement, data)
            else:
                use = f"{suggestion(site, detached_copy(data), data)} or .detach().to(..., copy=True)"
            site.report(self.code, call,
                        f"new_tensor() on tensor '{short_source(site, data)}' copies it with "
                        f"{short_source(site, call.func.value)}'s dtype and device and warns; use {use}{note}",
                        fix)

    def _fix(self, call: cst.Call, data, safe: bool) -> Optional[Fix]:
        split = moves_and_grad(call.args, data)
        if split is None:
            return None
        moves, grad = split
        like = call.func.value
        if not moves and bare(like).deep_equals(bare(data)):
            new = detached_copy(data)
        else:
            if dotted_name(like) is None:
                return None  # the receiver would be evaluated twice
            given = {arg.keyword.value for arg in moves}
            for name in ("dtype", "device"):
                if name not in given:
                    moves.append(keyword(name, cst.Attribute(value=bare(like), attr=cst.Name(name))))
            moves.sort(key=lambda arg: arg.keyword.value)
            moves.append(keyword("copy", cst.Name("True")))
            new = method(detached(data), "to", positional(moves))
        return Fix(keep_parentheses(call, finish(new, [], grad)), safe=safe)


RULES = (NewTensorOfTensor(),)
