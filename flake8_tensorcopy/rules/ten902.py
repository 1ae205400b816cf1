"""TEN902: a legacy constructor around a fresh temporary (opinionated), as a query of the
model's call events and the argument's ``fresh`` flag."""

from flake8_tensorcopy.fixes import Fix, bare, keep_parentheses
from flake8_tensorcopy.rules.base import Rule, evidence_note, short_source, suggestion
from flake8_tensorcopy.rules.ten103 import LegacyConstructorOfTensor, legacy_constructors_of_tensors


class LegacyConstructorOfTemporary(Rule):
    """
    ## What it does
    Flags a legacy typed constructor around a tensor made in the same expression, which no one
    else holds: `torch.Tensor(torch.zeros(3))`, `torch.FloatTensor(torch.randn(n))`,
    `torch.Tensor(a + b)` (opinionated, off by default: on only when a selection names it,
    `--extend-select TEN9` or `TEN902`; `--select TEN` leaves it off).

    ## Why is this bad?
    The wrapper does nothing: it returns an alias of the new tensor, with the same memory,
    values and dtype (`torch.Tensor` of an int64 tensor is int64), or raises `TypeError` where
    a typed constructor meets another dtype. It reads like a conversion to float, which it is
    not; the code says more without it. Where the argument is a tensor something else holds,
    the alias is a hazard: that is TEN103.

    ## Example
    ```python
    import torch

    def noise(n: int):
        return torch.FloatTensor(torch.randn(n))
    ```

    ## Use instead
    ```python
    import torch

    def noise(n: int):
        return torch.randn(n)
    ```
    (`torch.randn(n, dtype=torch.float32)`, or `.float()`, where a conversion was meant.)

    ## Fix safety
    Safe where the argument is surely a tensor (made by a torch API): the fix drops the
    wrapper, which returned the same tensor's memory and values (the only difference: a typed
    constructor's `TypeError` for another dtype goes away). Unsafe where it rests on weak
    evidence (`w * 2` of an annotated `w` repeats a list the wrapper would have converted).
    """

    code = "TEN902"
    fix_safety = "safe"
    summary = "legacy `torch.Tensor(...)` around a tensor made in the same expression (opinionated, off by default): drop the wrapper"
    calls = LegacyConstructorOfTensor.calls

    def query(self, model, site) -> None:
        for event, call, data, value in legacy_constructors_of_tensors(model, site, fresh=True):  # held: TEN103
            safe, note = evidence_note(site, value, data)
            site.report(
                self.code,
                call,
                f"{event.detail['callee']}() around the new tensor {short_source(site, data)} is redundant: it returns "
                f"an alias of it (or raises for another dtype); use {suggestion(site, data, data)}{note}",
                Fix(keep_parentheses(call, bare(data)), safe=safe),
            )


RULES = (LegacyConstructorOfTemporary(),)
