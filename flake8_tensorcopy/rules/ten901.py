"""TEN901 (opinionated): every other ``.data`` on a tensor, a legacy spelling."""

from flake8_tensorcopy.rules.base import Rule, short_source, suggestion
from flake8_tensorcopy.rules.ten301 import data_aliases, data_reads, detached_fix


class DataAttributeStyle(Rule):
    """
    ## What it does
    Flags every other `.data` on a tensor (opinionated, off by default: on only when a
    selection names it, `--extend-select TEN9` or `TEN901`; `--select TEN` leaves it off):
    initialisation, updates under `torch.no_grad()`, EMA and target network updates,
    `p.data = ...` dtype or device swaps, plain reads. Silent where a hazard rule reports on the
    same expression (an alias `w.data` makes, TEN203).

    ## Why is this bad?
    `.data` is a legacy API: it skips autograd's version counter, so the same line moved
    between a forward and its backward gives wrong gradients silently. `.detach()` (reads) and
    `torch.no_grad()` (writes) say what is meant and keep autograd's checks. The finding speaks
    of the spelling only: what the code later does with the values (an alias written
    elsewhere) is for the hazard rules (TEN2xx, TEN301) to judge.

    ## Example
    ```python
    from torch import nn

    def shrink(p: nn.Parameter):
        p.data.mul_(0.5)
    ```

    ## Use instead
    ```python
    import torch
    from torch import nn

    def shrink(p: nn.Parameter):
        with torch.no_grad():
            p.mul_(0.5)
    ```

    ## Fix safety
    Unsafe: reads become `.detach()`, which keeps the version counter: code that wrote through
    the result and relied on the silence now raises. Assignments to `.data` have no fix.
    """

    code = "TEN901"
    summary = "`.data` (opinionated, off by default): use `.detach()` or `torch.no_grad()`"
    attributes = ("data",)

    def query(self, model, site) -> None:
        reads = data_reads(model)
        if not reads:
            return
        # written through the expression itself (``x.data.mul_(2)``, ``x.data[i] = 0``, ``x.data += 1``):
        # no call can replace it; passed to a function that writes it, ``.detach()`` can
        written = {where for write in model.events.find("write") for where in data_aliases(model, write.value)
                   if reads.get(where) is not None and reads[where].line == write.line
                   and write.place is not None and write.place == reads[where].place}
        for where, attribute in reads.items():
            node = site.node_of(attribute.node)
            if node is None:
                continue
            detached, fix = detached_fix(site, node, attribute.detail["store"] or where in written)
            advice = "write under torch.no_grad() on the tensor itself" if fix is None else \
                f"use {suggestion(site, detached, node.value)}"
            site.report(self.code, node,
                        f"{short_source(site, node.value)}.data is a legacy spelling whose writes autograd's version "
                        f"counter never sees; {advice}", fix)


RULES = (DataAttributeStyle(),)
