"""TEN2xx: shared memory where a copy was meant.

The flow pass records alias facts (which operations made a key share storage with another,
what was known of the source) and raises the "sharing" event when one side is written in place
and the other observed (``analysis.aliases``). Each rule here claims the facts made by its
operations and decides whether the observation is a hazard: the other side read afterwards, or
kept where it outlives the function. A finding is reported at the expression that made the
alias, worded with the lines of the write and of the read.
"""

from typing import Optional, Tuple

import libcst as cst

from flake8_tensorcopy.analysis.aliases import SEQUENCE_VIEW_METHODS
from flake8_tensorcopy.knowledge.conventions import snapshot_named
from flake8_tensorcopy.analysis.facts import NO_CONTEXT, AliasFact, Holder, Made, SharingObserved, is_parameter_item
from flake8_tensorcopy.fixes import Fix, bare, chain, detached_copy, keep_parentheses, method
from flake8_tensorcopy.rules.base import Rule, short_source, suggestion


def deciding_operation(operations: Tuple[Made, ...]) -> Made:
    """The operation whose rule reports an alias made by a chain (outermost first): crossing
    between torch and numpy decides (``torch.from_numpy`` over ``numpy()``), else the outermost.
    A chain through a non_blocking transfer is left to TEN401/TEN402, which watch its timing."""
    for made in (Made.TRANSFER, Made.FROM_NUMPY, Made.NUMPY_VIEW):
        if made in operations:
            return made
    return operations[0]


class AliasRule(Rule):
    """A TEN2xx rule: it claims the alias facts made by the operations ``made_by``.

    Every fix replaces the expression that made the alias (``fact.node``) with a copy; all are
    unsafe: they remove an alias on purpose.
    """

    events = ("sharing",)
    # A call of a function of the file is read through its summary; an alias stored on ``self``
    # (``self.start = [p.detach() for p in self.params]``) is observed by a write in another body.
    reads = ("summaries", "stores on self")
    made_by: Tuple[Made, ...] = ()
    use_instead = ""
    stored_keeps_value = True  # an alias stored away keeps the value it had (not a window onto its source)
    kept_on_receiver = True  # an alias kept on self is observed when another call writes its source
    names_the_write = False  # the message names the call that writes (``opt.step()``), not only its line

    def check_sharing(self, event: SharingObserved, analysis) -> None:
        """One side of an alias this rule claims was written and the other observed: a finding
        where the sharing is a hazard, worded once the lines of the write and the read are known."""
        fact = event.fact
        if deciding_operation(fact.operations) not in self.made_by:
            return
        holder = self.observer(event) if event.read is None else event.holder
        if event.read is None and holder is None or not self.hazard(event):
            return
        fix = self.fix(fact, analysis)
        advice = self.advice(fact, fix, analysis)
        refs = {"write": event.write}
        if event.read is not None:
            refs["read"] = event.read
        writer = f" by {short_source(analysis, event.write)}" if self.names_the_write and type(
            event.write) is cst.Call else ""

        def message(lines) -> str:
            if holder is Holder.LOADED_BACK:
                return (
                    f"'{fact.alias_key}' shares memory with '{fact.source_key}' ({fact.op} does not copy): it follows "
                    f"every in-place update of '{fact.source_key}', so loading it back on line {lines['read']} "
                    f"restores the current weights, not the saved ones; {advice}"
                )
            if event.read is None:
                observation = _HELD[holder]
            elif lines["read"] < lines["write"]:
                observation = f"read on line {lines['read']} in a later iteration"
            else:
                observation = f"read on line {lines['read']}"
            return (
                f"'{fact.alias_key}' shares memory with '{fact.shown(fact.source_key)}' ({fact.op} does not copy): "
                f"'{fact.shown(event.written_key)}' is written in place{writer} on line {lines['write']} and "
                f"'{fact.shown(event.observed_key)}' {observation}; {advice}"
            )

        analysis.report(self.code, fact.node, message, fix, refs=refs)

    def observer(self, event: SharingObserved) -> Optional[Holder]:
        """Who observes the unwritten side when nothing reads it, or None.

        A caller (a parameter, an attribute, a global) or a container it was stored into; a
        local name only when it says it keeps an earlier value (``best``, ``w_prev``) and the
        function does not say it writes its arguments (``normalize_``). Kept on self and written
        by another call: where the rule says so, and not in a container of the model's own
        parameters that the class writes through (it holds references on purpose).
        """
        holder = event.holder
        context = event.context or NO_CONTEXT
        fact = event.fact
        if context.other_call:
            through = context.container_written and is_parameter_item(fact.source_key)
            return holder if self.kept_on_receiver and not through else None
        if holder is Holder.STORED and not self.stored_keeps_value:
            holder = Holder.LOCAL
        if holder is Holder.LOCAL:
            return holder if snapshot_named(fact.alias_key) and not context.on_purpose else None
        return holder

    def hazard(self, event: SharingObserved) -> bool:
        """Whether an observed sharing is a hazard, not a use of the alias on purpose.

        Reading the alias after its source changed always is. Reading the source after a write
        through the alias is not where the write fills a buffer of the function, where the
        function's name or parameter says it writes its arguments, where it writes the source
        through its own name too (an updater), or where it undoes the write (a perturbation).
        """
        if event.observed_key == event.fact.alias_key:
            return True
        context = event.context or NO_CONTEXT
        return not (self.fills(event.fact) or context.on_purpose or context.source_written_directly or context.undone)

    def fills(self, fact: AliasFact) -> bool:
        """Whether writing through the alias fills a buffer of the function: a blank allocation
        (``torch.zeros``) is made to be filled, also one just put on an attribute."""
        return fact.source.blank

    def advice(self, fact, fix: Optional[Fix], analysis) -> str:
        """The code the fix writes, or where there is none the rule's advice in general."""
        if fix is not None:
            return "use " + suggestion(analysis, fix.replacement, fact.node)
        return "use " + self.use_instead.format(alias=fact.alias_key, source=fact.source_key)

    def fix(self, fact, analysis) -> Optional[Fix]:
        return self.copy_of(fact.node, fact, analysis)

    def copy_of(self, node: cst.BaseExpression, fact, analysis) -> Optional[cst.BaseExpression]:
        return None


_HELD = {
    Holder.LOCAL: "is kept as a snapshot (its name says so)",
    **{holder: f"outlives the function ({holder.value})" for holder in Holder if holder is not Holder.LOCAL},
}


def _unsafe(node: cst.BaseExpression, new: Optional[cst.BaseExpression]) -> Optional[Fix]:
    return Fix(keep_parentheses(node, new), safe=False) if new is not None else None


class ViewShares(AliasRule):
    """
    ## What it does
    Flags views (`view`, `reshape`, `flatten`, `transpose`, `permute`, `t()`, `.T`, `squeeze`,
    `unsqueeze`, `expand`, `narrow`, `select`, `diagonal`, basic indexing and slicing, the
    items of `split`/`chunk`/`unbind`) kept as separate values while one side is written.

    ## Why is this bad?
    A view shares its base's storage. `reshape` and `flatten` copy only when the layout cannot
    be viewed, so "reshape makes a copy" holds for some inputs and not others.

    ## Example
    ```python
    import torch

    def first_row(x: torch.Tensor):
        row = x[0]
        x.zero_()
        return row
    ```

    ## Use instead
    ```python
    import torch

    def first_row(x: torch.Tensor):
        row = x[0].clone()
        x.zero_()
        return row
    ```

    ## Fix safety
    Unsafe: the view becomes a copy, which changes code that fills a buffer through a view.
    """

    code = "TEN204"
    summary = "a view (`view`, `reshape`, slicing, ...) shares storage, then one side is written; add `.clone()`"
    use_instead = "a .clone() of the view"
    made_by = (Made.VIEW, Made.PARTIAL_VIEW)
    stored_keeps_value = False  # a stored view is a window onto its base
    kept_on_receiver = False

    def fills(self, fact: AliasFact) -> bool:
        """A view of a local of the function is the ordinary way to fill part of it
        (``out = buf.narrow(...); out -= ...``)."""
        return fact.source.blank or fact.source.local

    def hazard(self, event: SharingObserved) -> bool:
        """Not a hazard either: a view of a part read inside the function after its base changed
        (a window onto it), an updater that writes its parameter through a view and hands the
        parameter back, a method filling part of its own state through a window. A view of the
        whole read after its base was written is reported."""
        fact = event.fact
        context = event.context or NO_CONTEXT
        partial = deciding_operation(fact.operations) is Made.PARTIAL_VIEW
        if event.observed_key == fact.alias_key:
            window = partial and event.read is not None and not context.returned and not snapshot_named(fact.alias_key)
            return not window
        if not super().hazard(event) or context.source_returned:
            return False
        return not (event.holder is Holder.RECEIVER_ATTRIBUTE and partial)

    def fix(self, fact, analysis) -> Optional[Fix]:
        node = fact.node
        if type(node) is cst.Call and type(node.func) is cst.Attribute and node.func.attr.value in SEQUENCE_VIEW_METHODS:
            # ``a, b = t.chunk(2)``: every item gets its own copy.
            item = cst.Name("view")
            copies = cst.ListComp(
                elt=method(item, "clone"),
                for_in=cst.CompFor(target=item, iter=bare(node)),
            )
            return _unsafe(node, copies)
        return _unsafe(node, method(bare(node), "clone"))


class AssignmentShares(AliasRule):
    """
    ## What it does
    Flags `y = x` (or `self.y = x`) of a tensor when `x` or `y` is then written in place and
    the other observed.

    ## Why is this bad?
    Assignment never copies: both names are one tensor, and `y += 1` changes `x` too.

    ## Example
    ```python
    import torch

    def bump(x: torch.Tensor):
        y = x
        y += 1
        return y
    ```

    ## Use instead
    ```python
    import torch

    def bump(x: torch.Tensor):
        y = x.clone()
        y += 1
        return y
    ```

    ## Fix safety
    Unsafe: the new name holds a copy, which changes code that meant to update in place.
    """

    code = "TEN206"
    summary = "`y = x` of a tensor makes two names for one tensor, then one is written; use `x.clone()`"
    use_instead = "{alias} = {source}.clone()"
    made_by = (Made.ASSIGNMENT,)
    kept_on_receiver = False  # ``self.w = w`` is how a class keeps what it is given

    def fix(self, fact, analysis) -> Optional[Fix]:
        return _unsafe(fact.node, method(bare(fact.node), "clone"))


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
    summary = "`model.state_dict()` kept as a snapshot follows training; use `{k: v.detach().clone() ...}`"
    use_instead = "{{k: v.detach().clone() for k, v in {source}.state_dict().items()}}"
    made_by = (Made.STATE_DICT,)
    kept_on_receiver = False  # a snapshot kept on self is observed when it is loaded back
    names_the_write = True  # the optimizer's step(), a training call: what changes the weights

    def hazard(self, event: SharingObserved) -> bool:
        """Only the snapshot read after its source changed: writing through a state dict
        (``sd[k].copy_(w)``, ``sd["step"] -= 1``) is how weights and counters are set on purpose."""
        return event.observed_key == event.fact.alias_key

    def fix(self, fact, analysis) -> Optional[Fix]:
        """A copy per value, spelled without imports: ``{k: v.detach().clone() for ...}``."""
        node = fact.node
        if type(node) is cst.DictComp:
            return _unsafe(node, node.with_changes(value=detached_copy(node.value), lpar=[], rpar=[]))
        state = _state_dict_call(node)
        if state is None:
            return None
        key, value = cst.Name("k"), cst.Name("v")
        copies = cst.DictComp(
            key=key,
            value=chain(value, "detach", "clone"),
            for_in=cst.CompFor(
                target=cst.Tuple([cst.Element(key, comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))),
                                  cst.Element(value)], lpar=[], rpar=[]),
                iter=method(state, "items"),
            ),
        )
        return _unsafe(node, copies)


def _state_dict_call(node: cst.BaseExpression) -> Optional[cst.Call]:
    """The ``x.state_dict()`` call inside ``x.state_dict()``, ``.copy()`` of it or ``dict(...)`` of it."""
    while type(node) is cst.Call:
        func = node.func
        if type(func) is cst.Attribute and func.attr.value == "state_dict":
            return bare(node)
        if type(func) is cst.Attribute and func.attr.value == "copy":
            node = func.value
        elif node.args:
            node = node.args[0].value
        else:
            return None
    return None


RULES = (
    ViewShares(),
    AssignmentShares(),
    StateDictSnapshot(),
)
