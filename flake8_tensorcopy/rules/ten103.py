"""TEN103: a legacy constructor (``torch.Tensor(t)``) on a tensor something else holds, as a
query of the model's call events and the argument's ``fresh`` flag."""

from flake8_tensorcopy.data import LEGACY_CONSTRUCTORS
from flake8_tensorcopy.fixes import Fix, bare, chain, keep_parentheses
from flake8_tensorcopy.rules.base import Rule, short_source, suggestion
from flake8_tensorcopy.rules.ten101 import TENSOR


def legacy_constructors_of_tensors(model, site, fresh: bool):
    """(call event, LibCST call, its argument, the argument's value) for each legacy typed
    constructor called on exactly one value the model knows to be a tensor (sizes, lists,
    unknown values are not), made on the spot (``fresh``) or held by something else."""
    seen = set()
    for event in model.events.find("call"):
        node = event.node
        if event.detail.get("callee") not in LEGACY_CONSTRUCTORS or id(node) in seen:
            continue
        seen.add(id(node))
        if len(node.args) != 1 or node.keywords or type(node.args[0]).__name__ == "Starred":
            continue
        arguments = event.detail.get("arguments", ())
        value = arguments[0] if arguments else None
        if value is None or value.kinds != TENSOR or value.fresh != fresh:
            continue
        call = site.node_of(node)
        if call is None or len(call.args) != 1:
            continue
        yield event, call, call.args[0].value, value


class LegacyConstructorOfTensor(Rule):
    """
    ## What it does
    Flags the legacy typed constructors called on a tensor that something else holds (a name,
    a parameter, a view of one): `torch.Tensor(t)`, `torch.FloatTensor(t)`,
    `torch.DoubleTensor(t)`, `torch.cuda.FloatTensor(t)`, ... On a tensor made right there
    (`torch.Tensor(torch.zeros(3))`, `torch.Tensor(a + b)`: the model's value is *fresh*) no one
    holds the alias: that is TEN902, opinionated.

    ## Why is this bad?
    They read like a conversion or a copy but are neither: `torch.Tensor(t)` returns an
    **alias** of `t` whatever its dtype (same memory, still in the graph: its grad_fn is
    `AliasBackward0`) without a warning; the typed ones (`torch.FloatTensor(t)`) alias a tensor
    of their own type and raise `TypeError` for another dtype. Writing into the "copy" writes
    into `t`, and writing `t` changes the "copy".

    ## Example
    ```python
    import torch

    def backup(t: torch.Tensor):
        return torch.Tensor(t)
    ```

    ## Use instead
    ```python
    import torch

    def backup(t: torch.Tensor):
        return t.clone()
    ```

    ## Fix safety
    Unsafe: the fix makes a real copy, which changes behaviour where code relied on the alias.
    """

    code = "TEN103"
    summary = "legacy `torch.Tensor(t)`/`torch.FloatTensor(t)` on a tensor something else holds aliases it; use `t.clone()`"
    calls = tuple(sorted({name.rsplit(".", 1)[-1] for name in LEGACY_CONSTRUCTORS}))

    def query(self, model, site) -> None:
        for event, call, data, value in legacy_constructors_of_tensors(model, site, fresh=False):  # fresh: TEN902
            copy = chain(bare(data), "clone")
            site.report(
                self.code,
                call,
                f"{event.detail['callee']}() on tensor '{short_source(site, data)}' is not a copy: it aliases its "
                f"memory (or raises for another dtype); use {suggestion(site, copy, data)}",
                Fix(keep_parentheses(call, copy), safe=False),
            )


RULES = (LegacyConstructorOfTensor(),)
