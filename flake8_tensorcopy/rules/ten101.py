"""TEN101: ``torch.tensor(t)`` on a tensor, as a query of the model's call events."""

from typing import Optional

import libcst as cst

from flake8_tensorcopy.fixes import Fix, detached_copy, keep_parentheses, keyword, method, positional
from flake8_tensorcopy.model.values import without_none
from flake8_tensorcopy.rules.base import Rule, argument, call_argument, evidence_note, short_source, suggestion

TENSOR = frozenset(("tensor",))


def moves_and_grad(args, skip):
    """Split ``dtype=``/``device=``/``requires_grad=`` keywords of a constructor into the
    ``.to(...)`` arguments and the ``requires_grad_`` value; None when other arguments exist."""
    moves, grad = [], None
    for arg in args:
        if arg.value is skip:
            continue
        if arg.keyword is None or arg.star:
            return None
        name = arg.keyword.value
        if name in ("dtype", "device"):
            moves.append(keyword(name, arg.value))
        elif name == "requires_grad":
            grad = arg.value
        else:
            return None
    return moves, grad


def finish(new, moves, grad):
    """``new.to(dtype=..., device=...).requires_grad_(...)`` as the keywords asked."""
    if moves:
        new = method(new, "to", positional(moves))
    if grad is not None and not (type(grad) is cst.Name and grad.value == "False"):
        new = method(new, "requires_grad_", [cst.Arg(grad)])
    return new


def calls_to(model, callee: str):
    """The model's call events of ``callee`` (a qualified torch name or a tensor method), one
    per call site."""
    seen = set()
    for event in model.events.find("call"):
        if event.detail.get("callee") == callee and id(event.node) not in seen:
            seen.add(id(event.node))
            yield event


class TensorOfTensor(Rule):
    """
    ## What it does
    Flags `torch.tensor(t)` when `t` is already a tensor, with or without `dtype=`, `device=`
    or `requires_grad=`.

    ## Why is this bad?
    `torch.tensor` always copies its data and cuts it from the autograd graph. On a tensor it
    also warns ("To copy construct from a tensor, it is recommended to use
    sourceTensor.detach().clone() ...") and is slower than the method PyTorch recommends. Code
    that means "copy this tensor" should say so.

    ## Example
    ```python
    import torch

    def snapshot(weights: torch.Tensor):
        return torch.tensor(weights)
    ```

    ## Use instead
    ```python
    import torch

    def snapshot(weights: torch.Tensor):
        return weights.detach().clone()
    ```
    `dtype=`/`device=` become `.to(...)`, `requires_grad=True` becomes `.requires_grad_(True)`.

    ## Fix safety
    Safe where `t` is surely a tensor (made by a torch API, or proven by use in the function:
    `t.detach()` ran, `isinstance(t, torch.Tensor)` held): the fixed code computes the same
    values, dtype, device and `requires_grad`, without the warning. Unsafe where only an
    annotation says so: annotations lie, and `torch.tensor(t)` of the Python list a caller
    passed works where `t.detach()` raises `AttributeError`. Unsafe rather than none: the
    annotation is the author's own claim, and `--unsafe-fixes` is for fixes resting on a claim.
    """

    code = "TEN101"
    fix_safety = "safe"
    summary = "`torch.tensor(t)` on a tensor copies slowly and warns; use `t.detach().clone()`"
    calls = ("tensor",)

    def query(self, model, site) -> None:
        for event in calls_to(model, "torch.tensor"):
            value = call_argument(event, 0, "data")
            if value is None or without_none(value).kinds != TENSOR:
                continue
            call = site.node_of(event.node)
            data = argument(call, 0, "data") if call is not None else None
            if data is None:
                continue
            safe, note = evidence_note(site, value, data)
            fix = self._fix(call, data, safe)
            use = suggestion(site, fix.replacement if fix else detached_copy(data), data)
            site.report(self.code, call,
                        f"torch.tensor() on tensor '{short_source(site, data)}' copies it detached and warns; use {use}{note}",
                        fix)

    def _fix(self, call: cst.Call, data, safe: bool) -> Optional[Fix]:
        split = moves_and_grad(call.args, data)
        if split is None:
            return None
        new = finish(detached_copy(data), *split)
        return Fix(keep_parentheses(call, new), safe=safe)


RULES = (TensorOfTensor(),)
