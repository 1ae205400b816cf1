"""TEN208: ``model.state_dict()`` kept as a snapshot while training writes the weights, as a query of the model."""

import ast
from typing import Optional

import libcst as cst

from flake8_tensorcopy.fixes import Fix, bare, chain, detached_copy, method
from flake8_tensorcopy.model.places import inside
from flake8_tensorcopy.rules.sharing import (
    AliasRule, Sharing, alias_place, chains, loaded_back, report_loaded_back, returned_side, sharings, unsafe,
)

class StateDictSnapshot(AliasRule):
    """
    ## What it does
    Flags `model.state_dict()` (or its `.copy()`, `dict(...)`, or `{k: v ...}` without a copy
    per value) kept as a snapshot such as "best weights" while the model keeps training.

    ## Why is this bad?
    The values are the live parameter tensors: the snapshot follows every write of the weights
    (the optimizer's `step()`, a training call given the model; the message names the call and
    its line; `model.train()` only sets the mode and writes nothing), and
    `load_state_dict(best)` restores the last state, not the best one.

    ## Example
    ```python
    import torch
    from torch import nn

    def fit(model: nn.Module, batches):
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        best = model.state_dict()
        for x in batches:
            model(x).sum().backward()
            opt.step()
        model.load_state_dict(best)
    ```

    ## Use instead
    ```python
    import torch
    from torch import nn

    def fit(model: nn.Module, batches):
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        best = {k: v.detach().clone() for k, v in model.state_dict().items()}
        for x in batches:
            model(x).sum().backward()
            opt.step()
        model.load_state_dict(best)
    ```

    A copy of each value, spelled without imports (`copy.deepcopy(model.state_dict())` copies
    the same tensors, and the metadata too).

    ## Fix safety
    Unsafe: the snapshot becomes a copy (memory for one more set of weights).
    """

    code = "TEN208"
    kinds = ("state_dict",)
    summary = "`model.state_dict()` kept as a snapshot follows training; use `{k: v.detach().clone() ...}`"
    use_instead = "a copy of each value: {k: v.detach().clone() for k, v in ....state_dict().items()}"

    def query(self, model, site) -> None:
        """The snapshots read after a write of the weights; and those kept on the object and
        loaded back into their own model on a later call, where no write is in sight (the
        training happens between the calls, elsewhere)."""
        super().query(model, site)
        for alias, kind in chains(model):
            if kind not in self.kinds or any(self.hazard(model, sharing) for sharing in sharings(model, alias, kind)):
                continue
            load = loaded_back(model, alias)
            if load is not None:
                report_loaded_back(self, model, site, alias, load)

    def hazard(self, model, sharing: Sharing) -> bool:
        """Only a snapshot kept, under a name or in what its function hands back to its callers
        (``return Checkpoint(step, model.state_dict())``), and read after the weights changed:
        writing through a state dict (``sd[k].copy_(w)``, ``sd["step"] -= 1``) is how weights and
        counters are set on purpose, and one handed straight to a call (``torch.save(m.state_dict(),
        f)``) is used at once."""
        return not sharing.written_alias and (alias_place(model, sharing.alias) is not None
                                              or returned_side(model, sharing.alias, True)
                                              and _kept_by_a_caller(model, sharing.alias, sharing.observed))

    def writer(self, site, write) -> str:
        """The call that writes the weights (``opt.step()``, a training call given the model)."""
        if type(write.node) is not ast.Call:
            return super().writer(site, write)
        node = site.node_of(write.node)
        return f" by {site.source_of(node)}" if node is not None else ""

    def report_node(self, model, alias):
        """The snapshot as it is bound: ``dict(m.state_dict())``, its ``.copy()``, a comprehension over it."""
        return _bound_value(model, alias) or alias.node

    def fix(self, node, alias, site) -> Optional[Fix]:
        """A copy per value, spelled without imports: ``{k: v.detach().clone() for ...}``."""
        if type(node) is cst.DictComp:
            return unsafe(node, node.with_changes(value=detached_copy(node.value), lpar=[], rpar=[]))
        state = site.node_of(alias.node)
        if type(state) is not cst.Call:
            return None
        key, value = cst.Name("k"), cst.Name("v")
        comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
        copies = cst.DictComp(
            key=key,
            value=chain(value, "detach", "clone"),
            for_in=cst.CompFor(target=cst.Tuple([cst.Element(key, comma=comma), cst.Element(value)], lpar=[], rpar=[]),
                               iter=method(bare(state), "items")),
        )
        return unsafe(node, copies)


RULE = StateDictSnapshot()


def _bound_value(model, alias) -> Optional[ast.expr]:
    """The expression whose value the snapshot's name is first bound to, where the alias is
    made inside it."""
    place = alias_place(model, alias)
    for bind in model.events.find("bind"):
        expression = bind.detail.get("expression")
        if bind.place == place and expression is not None and bind.function is alias.function and inside(
                alias.node, expression):
            return expression
    return None


def _kept_by_a_caller(model, alias, observed: str) -> bool:
    """Whether the place the sharing observes is where a caller of the function that made the
    snapshot binds what it hands back (a name, an attribute, an item: ``best = record(m)``,
    ``history.append(record(m))``), not a use inside the expression that called it
    (``target.load_state_dict(record(m)["w"])``, observed as "it")."""
    made = alias.detail["made"]
    returned = getattr(alias.function.summary, "returns", None)
    if returned is not None and "generator" in returned.kinds:
        return True  # a generator's items: ``_collected_from_generator`` found the consumer keeping them

    def holds(value) -> bool:
        return made in value.made or any(holds(item) for _, item in value.items or ())

    return any(event.function is not alias.function and event.place and event.value is not None
               and holds(event.value) and (observed == event.place or observed.startswith((event.place + ".", event.place + "[")))
               for event in model.events.find("bind") + model.events.find("accumulate"))
