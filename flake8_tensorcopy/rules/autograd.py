"""TEN3xx: autograd hazards of copying. Grad provenance comes from ``analysis.provenance``."""

import libcst as cst

from typing import Optional

from flake8_tensorcopy.analysis.conventions import loss_named, words
from flake8_tensorcopy.analysis.facts import PARAMETER, ModuleClass, ModuleInstance
from flake8_tensorcopy.analysis.scope import MODULE, TENSOR, dotted_name
from flake8_tensorcopy.analysis.statements import children_of, small_statements, subtree, suite_statements
from flake8_tensorcopy.data import INPLACE_METHODS
from flake8_tensorcopy.fixes import Fix, bare, chain, detached_copy, keep_parentheses, method
from flake8_tensorcopy.rules.base import Rule, on_accelerator, short_source, suggestion

def _initialising(function: Optional[cst.FunctionDef]) -> bool:
    """``__init__``, ``reset_parameters``, ``init_weights``: code that sets values up, before any graph."""
    return function is not None and not {"init", "initialize", "reset"}.isdisjoint(words(function.name.value))


def _written_through(node: cst.Attribute, statement: Optional[cst.CSTNode]) -> bool:
    """Whether ``node`` (``x.data``) is written in place by ``statement``: the receiver of an
    in-place method, or the base of an assigned or augmented subscript (``x.data[i] = 0``)."""
    if statement is None:
        return False
    targets = []
    if type(statement) is cst.Assign:
        targets = [target.target for target in statement.targets]
    elif type(statement) is cst.AugAssign:
        targets = [statement.target]
    for target in targets:
        while type(target) is cst.Subscript or (type(target) is cst.Attribute and target is not node):
            target = target.value
        if target is node:
            return True
    stack = [statement]
    while stack:
        current = stack.pop()
        if type(current) is cst.Call and type(current.func) is cst.Attribute and current.func.attr.value in INPLACE_METHODS:
            receiver = current.func.value
            while type(receiver) is cst.Call and type(receiver.func) is cst.Attribute and (
                    receiver.func.attr.value in INPLACE_METHODS):
                receiver = receiver.func.value  # ``x.data.mul_(d).add_(y)``
            if receiver is node:
                return True
        stack.extend(children_of(current))
    return False


def _assigned(node: cst.Attribute, statement: Optional[cst.CSTNode]) -> bool:
    """``x.data = ...`` or ``x.data += ...``: a target no call can replace."""
    if type(statement) is cst.Assign:
        return any(target.target is node for target in statement.targets)
    return type(statement) is cst.AugAssign and statement.target is node


def _contains(root: cst.CSTNode, node: cst.CSTNode) -> bool:
    return any(current is node for current in subtree(root))


def _feeds_loss(node: cst.Attribute, analysis) -> Optional[str]:
    """What makes the value read through ``node`` a loss, if anything: the statement assigns it
    to a name spelled as a loss or that ``.backward()`` is called on, or it is an argument of a
    loss function (``F.mse_loss``, ``criterion``)."""
    statement = analysis.statement
    if type(statement) in (cst.Assign, cst.AugAssign):
        targets = [target.target for target in statement.targets] if type(statement) is cst.Assign else [
            statement.target]
        for target in targets:
            if type(target) is cst.Name and _contains(statement.value, node):
                if target.value in analysis.provenance.backward_receivers():
                    return f"{target.value}.backward() runs"
                if loss_named(target.value):
                    return f"'{target.value}' is a loss"
    if statement is None:
        return None
    stack = [statement]
    while stack:
        current = stack.pop()
        if type(current) is cst.Call:
            callee = (analysis.qualname(current.func) or dotted_name(current.func) or "").rsplit(".", 1)[-1]
            if (loss_named(callee) or callee == "criterion") and any(_contains(arg.value, node) for arg in current.args):
                return f"it is an argument of {callee}()"
        stack.extend(children_of(current))
    return None


def _backward_follows(analysis) -> bool:
    """Whether a ``.backward()`` call comes after the statement being walked in its function."""
    return _backward_around(analysis, after=True)


def _backward_precedes(analysis) -> bool:
    """Whether a ``.backward()`` call comes before the statement being walked (its graph is spent)."""
    return _backward_around(analysis, after=False)


def _backward_around(analysis, after: bool) -> bool:
    function = analysis.function
    if function is None:
        return False
    later = False
    for small in small_statements(suite_statements(function.body)):
        if small is analysis.statement:
            later = True
        elif later is after and _calls_backward(small):
            return True
    return False


def _calls_backward(node: cst.CSTNode) -> bool:
    return any(type(current) is cst.Call and type(current.func) is cst.Attribute and current.func.attr.value == "backward"
               for current in subtree(node))


def _graph_recorded(analysis) -> bool:
    """Whether the function being walked holds a graph output at this point (a forward ran)."""
    scope = analysis.scope.frame
    return any(binding.grad.graph_non_leaf for binding in scope.names.values())


def data_hazard(node: cst.Attribute, analysis, store: bool) -> Optional[str]:
    """Why ``node`` (``x.data`` on a tensor) can corrupt or drop gradients (TEN301), or None
    where it is only a legacy spelling (TEN901): initialisation, ``no_grad``, EMA updates, swaps."""
    statement = analysis.statement
    swapped = type(statement) is cst.Assign and _assigned(node, statement)
    if swapped or analysis.no_grad_depth or _initialising(analysis.function):
        return None  # ``p.data = ...`` replaces the tensor: no saved value changes in place
    base = node.value
    if _written_through(node, analysis.statement):
        if _graph_recorded(analysis) and _backward_follows(analysis):
            return "written in place after a forward pass and before its backward(): the saved values change " \
                   "behind autograd's back (wrong gradients, no error)"
        state = analysis.grad_of(base)
        if state and state.leaf is False and not _backward_precedes(analysis):
            return f"written in place while '{short_source(analysis, base)}' is in a graph ({state.evidence}): " \
                   "the operation that made it may have saved it for backward (wrong gradients, no error)"
        return None
    state = analysis.grad_of(base)
    reason = _feeds_loss(node, analysis) if state else None
    if reason is not None:
        return f"read into a loss ({reason}) while '{short_source(analysis, base)}' requires grad " \
               f"({state.evidence}): no gradient reaches it"
    return None


def _data_of_tensor(node: cst.Attribute, analysis) -> bool:
    base = node.value
    return analysis.kind_of(base) == TENSOR or bool(analysis.grad_of(base))


class DataAttribute(Rule):
    """
    ## What it does
    Flags `.data` where it can corrupt or silently drop gradients: an in-place write through
    `x.data` after a forward pass and before its `backward()` in the same function, or a read of
    `x.data` (of a tensor that requires grad) that flows into a loss. Every other `.data` use
    (initialisation, `no_grad` code, EMA updates, `p.data = ...` swaps) is TEN901, off by default.

    ## Why is this bad?
    Writes through `.data` bypass autograd's version counter: a backward pass that saved the
    old values succeeds **with wrong gradients**, where the same write through `.detach()`
    raises "one of the variables needed for gradient computation has been modified by an
    inplace operation". A loss built from `x.data` has no gradient path to `x`: it trains nothing.

    ## Example
    ```python
    import torch.nn.functional as F
    from torch import nn

    def step(layer: nn.Linear, x, y):
        out = layer(x)
        layer.weight.data.mul_(0.5)
        F.mse_loss(out, y).backward()
    ```

    ## Use instead
    ```python
    import torch
    import torch.nn.functional as F
    from torch import nn

    def step(layer: nn.Linear, x, y):
        out = layer(x)
        F.mse_loss(out, y).backward()
        with torch.no_grad():
            layer.weight.mul_(0.5)
    ```
    Reads become `x.detach()` (or `x` itself, where the gradient was meant to flow).

    ## Fix safety
    Unsafe: `.detach()` makes autograd notice in-place writes, so code that relied on the
    silence now raises (which is the point).
    """

    code = "TEN301"
    summary = "`.data` written between forward and backward, or read into a loss, corrupts or drops gradients"
    attributes = ("data",)
    reads = ("callers",)  # a caller backpropagating what the function returns puts its values in a graph

    def check_attribute(self, node: cst.Attribute, analysis, store: bool) -> None:
        if not _data_of_tensor(node, analysis):
            return
        hazard = data_hazard(node, analysis, store)
        if hazard is None:
            return
        base = node.value
        source = short_source(analysis, base)
        detached = chain(bare(base), "detach")
        fix = None if _assigned(node, analysis.statement) else Fix(keep_parentheses(node, detached), safe=False)
        analysis.report(
            self.code,
            node,
            f"{source}.data is {hazard}; use {suggestion(analysis, detached, base)}",
            fix,
        )


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
    reads = ("callers",)  # where TEN301 sees a hazard it stays silent: the same evidence

    def check_attribute(self, node: cst.Attribute, analysis, store: bool) -> None:
        if not _data_of_tensor(node, analysis) or data_hazard(node, analysis, store) is not None:
            return
        base = node.value
        source = short_source(analysis, base)
        detached = chain(bare(base), "detach")
        fix = None if _assigned(node, analysis.statement) or _written_through(node, analysis.statement) else Fix(keep_parentheses(node, detached),
                                                                                  safe=False)
        advice = "write under torch.no_grad() on the tensor itself" if fix is None else \
            f"use {suggestion(analysis, detached, base)}"
        analysis.report(
            self.code,
            node,
            f"{source}.data is a legacy spelling whose writes autograd's version counter never sees; {advice}",
            fix,
        )


RULES = (
    DataAttribute(),
    DataAttributeStyle(),
)
