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

from flake8_tensorcopy.knowledge.conventions import snapshot_named
from flake8_tensorcopy.analysis.facts import NO_CONTEXT, AliasFact, Holder, Made, SharingObserved, is_parameter_item
from flake8_tensorcopy.analysis.statements import subtree
from flake8_tensorcopy.fixes import Fix, bare, keep_parentheses, keyword, method, torch_module
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


def _called(node: cst.BaseExpression, analysis) -> Optional[str]:
    return analysis.qualname(node.func) if type(node) is cst.Call else None


class NumpyShares(AliasRule):
    """
    ## What it does
    Flags `t.numpy()` (also after `.detach()`/`.cpu()`, and `np.asarray(t)`) when the array
    and the tensor are written and read as if they were separate.

    ## Why is this bad?
    On the CPU the array and the tensor share one buffer, both ways: writing one changes the
    other. `.cpu()` is a no-op on a CPU tensor and `numpy(force=True)` still shares there, so
    code that works on a GPU machine corrupts data on a laptop.

    ## Example
    ```python
    import torch

    def scaled(t: torch.Tensor):
        arr = t.numpy()
        arr *= 2  # the caller's t is doubled too
        return arr
    ```

    ## Use instead
    ```python
    import torch

    def scaled(t: torch.Tensor):
        arr = t.numpy().copy()
        arr *= 2
        return arr
    ```

    ## Fix safety
    Unsafe: the array no longer aliases the tensor, which changes code that wanted the sharing.
    """

    code = "TEN201"
    made_by = (Made.NUMPY_VIEW,)
    summary = "`t.numpy()` shares memory with `t`, then one side is written; use `.numpy().copy()`"
    use_instead = "{source}.numpy().copy() or np.array({source})"

    def fix(self, fact, analysis) -> Optional[Fix]:
        node = fact.node
        if _called(node, analysis) == "numpy.asarray":
            if type(node.func) is not cst.Attribute:
                return None
            array = node.func.with_changes(attr=cst.Name("array"))
            return _unsafe(node, node.with_changes(func=array, lpar=[], rpar=[]))
        return _unsafe(node, method(bare(node), "copy"))


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
    made_by = (Made.FROM_NUMPY,)
    summary = "`torch.from_numpy(a)` shares memory with `a`, then one side is written; use `torch.tensor(a)`"
    use_instead = "torch.tensor({source})"

    def fix(self, fact, analysis) -> Optional[Fix]:
        node = fact.node
        if _called(node, analysis) in ("torch.from_numpy", "torch.as_tensor", "torch.asarray"):
            module = torch_module(analysis, node.func)
            if module is None:
                return None
            new = cst.Call(func=cst.Attribute(value=module, attr=cst.Name("tensor")), args=node.args)
            return _unsafe(node, new)
        return _unsafe(node, method(bare(node), "clone"))


class MoveMayShare(AliasRule):
    """
    ## What it does
    Flags `.cpu()`, `.cuda()`, `.to(...)` without `copy=True`, `.float()`/`.double()`/...,
    `.type(T)`, `.type_as(u)`, `.contiguous()`, `torch.as_tensor(t)` and `torch.asarray(t)` on a
    tensor, kept as a separate value while one side is written.

    ## Why is this bad?
    These return **the very same tensor** when nothing needs to change (`.cpu()` on a CPU
    tensor) and a copy otherwise: the aliasing bug shows on one device and not the other.
    On CPU, `.cpu()` and `.to("cpu")` return the tensor itself (`.cuda()` copies). On CUDA,
    `.cpu()` copies to the host, while `.cuda()`, `.to("cuda")`, `.to("cuda:0")`,
    `.to("cuda", torch.float32)` and `.type(torch.cuda.FloatTensor)` of a float32 CUDA tensor
    return it (NVIDIA H100, measured). On both, `.float()` of a float32 tensor,
    `.contiguous()` of a contiguous one and `torch.as_tensor(t)` return `t` itself.

    ## Example
    ```python
    import torch

    def host_copy(x: torch.Tensor):
        saved = x.cpu()
        x.add_(1)
        return saved
    ```

    ## Use instead
    ```python
    import torch

    def host_copy(x: torch.Tensor):
        saved = x.to("cpu", copy=True)
        x.add_(1)
        return saved
    ```

    ## Fix safety
    Unsafe: the result is always a copy, which costs memory where the alias was intended.
    """

    code = "TEN205"
    made_by = (Made.MOVE,)
    summary = "`.cpu()`/`.to()`/`.float()`/`.contiguous()` may return the same tensor; add `copy=True` or `.clone()`"
    use_instead = '.to(..., copy=True) or .clone() on the result'

    def check_sharing(self, event: SharingObserved, analysis) -> None:
        if _converted_where_it_differs(event.fact.node, analysis.function):
            return
        super().check_sharing(event, analysis)

    def fix(self, fact, analysis) -> Optional[Fix]:
        node = fact.node
        if type(node) is cst.Call and type(node.func) is cst.Attribute:
            name = node.func.attr.value
            copy = keyword("copy", cst.Name("True"))
            if name == "cpu" and not node.args:
                to = node.func.with_changes(attr=cst.Name("to"))
                args = [cst.Arg(cst.SimpleString('"cpu"'), comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))), copy]
                return _unsafe(node, node.with_changes(func=to, args=args, lpar=[], rpar=[]))
            if name == "to" and node.args:
                last = node.args[-1].with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
                return _unsafe(node, node.with_changes(args=list(node.args[:-1]) + [last, copy], lpar=[], rpar=[]))
        return _unsafe(node, method(bare(node), "clone"))


def _converted_where_it_differs(move: cst.BaseExpression, function: Optional[cst.FunctionDef]) -> bool:
    """Whether ``move`` (``x.to(d)``) runs only under ``if ... != d`` (or ``is not d``): the code
    converts where the dtype or device differs, so the move always makes a new tensor there."""
    if function is None or type(move) is not cst.Call or not move.args:
        return False
    target = move.args[0].value
    for node in subtree(function.body):
        if type(node) is not cst.If or type(node.test) is not cst.Comparison:
            continue
        test = node.test
        if not any(type(part.operator) in (cst.NotEqual, cst.IsNot) for part in test.comparisons):
            continue
        operands = [test.left] + [part.comparator for part in test.comparisons]
        if any(operand.deep_equals(target) for operand in operands) and any(
                inner is move for inner in subtree(node.body)):
            return True
    return False


RULES = (
    NumpyShares(),
    FromNumpyShares(),
    MoveMayShare(),
)
