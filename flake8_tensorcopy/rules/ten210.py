"""TEN210: slice assignment whose right-hand side is an overlapping view of the same tensor."""

import ast
from typing import List, Optional

import libcst as cst

from flake8_tensorcopy import knowledge as k
from flake8_tensorcopy.fixes import Fix, bare, keep_parentheses, method
from flake8_tensorcopy.rules.base import Rule, short_source, suggestion

SAME, RIGHT, LEFT, DISJOINT = "same", "right", "left", "disjoint"


def _bound(node: Optional[cst.BaseExpression]):
    """A slice bound: None, an int, or (sign, code) for a symbolic one (``-k`` is (-1, "k"))."""
    if node is None:
        return None
    sign = 1
    while type(node) is cst.UnaryOperation and type(node.operator) is cst.Minus:
        sign, node = -sign, node.expression
    if type(node) is cst.Integer:
        return sign * int(node.value, 0)
    return sign, cst.Module([]).code_for_node(bare(node))


def _negated(bound):
    if bound is None:
        return None
    return -bound if isinstance(bound, int) else (-bound[0], bound[1])


def _start(bound):
    return None if bound == 0 else bound


def _compare_dimension(written: cst.BaseSlice, read: cst.BaseSlice) -> Optional[str]:
    """How the written part of one dimension sits against the part read: the same, shifted
    right (the destination starts later) or left, disjoint, or None when unknown."""
    if type(written) is cst.Index and type(read) is cst.Index:
        first, second = _bound(written.value), _bound(read.value)
        if first == second:
            return SAME
        return DISJOINT if isinstance(first, int) and isinstance(second, int) else None
    if type(written) is not cst.Slice or type(read) is not cst.Slice:
        return None
    if _bound(written.step) != _bound(read.step):
        return None
    lower, upper = _start(_bound(written.lower)), _bound(written.upper)
    read_lower, read_upper = _start(_bound(read.lower)), _bound(read.upper)
    if (lower, upper) == (read_lower, read_upper):
        return SAME
    if upper is None and read_lower is None and read_upper is not None and lower == _negated(read_upper):
        return RIGHT  # ``x[k:] = x[:-k]``
    if lower is None and read_upper is None and read_lower is not None and upper == _negated(read_lower):
        return LEFT  # ``x[:-k] = x[k:]``
    bounds = (lower or 0, read_lower or 0, upper, read_upper)
    if all(isinstance(bound, int) and bound >= 0 for bound in bounds):
        if upper <= (read_lower or 0) or read_upper <= (lower or 0):
            return DISJOINT
        return RIGHT if (lower or 0) > (read_lower or 0) else LEFT
    return None


def _elements(node: cst.BaseExpression) -> List[cst.BaseSlice]:
    return [element.slice for element in node.slice] if type(node) is cst.Subscript else []


def _is_ellipsis(part: cst.BaseSlice) -> bool:
    return type(part) is cst.Index and type(part.value) is cst.Ellipsis


def _is_whole(part: cst.BaseSlice) -> bool:
    """A whole dimension: ``:`` or ``...``."""
    return _is_ellipsis(part) or (type(part) is cst.Slice and part.lower is None and part.upper is None
                                  and part.step is None)


def _overlap(written: cst.Subscript, read: cst.BaseExpression) -> Optional[str]:
    """RIGHT for a right shift, LEFT for a left shift of whole rows (along the first dimension),
    SAME for a full overlap, else None (safe, or not known)."""
    written_parts, read_parts = _elements(written), _elements(read)
    if any(map(_is_ellipsis, written_parts + read_parts)):
        if len(written_parts) != len(read_parts):
            return None  # ``...`` stands for other dimensions on each side
    else:
        whole = cst.Slice(lower=None, upper=None)
        length = max(len(written_parts), len(read_parts))
        written_parts += [whole] * (length - len(written_parts))
        read_parts += [whole] * (length - len(read_parts))
    classes = [
        SAME if _is_ellipsis(first) and _is_ellipsis(second) else _compare_dimension(first, second)
        for first, second in zip(written_parts, read_parts)
    ]
    if None in classes or DISJOINT in classes:
        return None
    shifts = [kind for kind in classes if kind != SAME]
    if not shifts:
        return SAME
    rest = list(zip(written_parts[1:], read_parts[1:]))
    whole_rows = all(_is_whole(first) and _is_whole(second) for first, second in rest)
    if shifts == [LEFT] and classes[0] == LEFT and whole_rows:  # ``x[:-1] = x[1:]``: contiguous where the tensor is
        return LEFT
    return RIGHT if all(kind == RIGHT for kind in shifts) else None


class OverlappingSliceAssignment(Rule):
    """
    ## What it does
    Flags a slice assignment whose right-hand side is an overlapping view of the tensor it
    writes: a right shift (`buf[:, k:] = buf[:, :-k]`, `x[1:] = x[:-1]`), a left shift of whole
    rows (`x[:-1] = x[1:]`) or the same block rearranged (`x[1] = x[1].transpose(-2, -1)`), and
    an in-place method given its own receiver rearranged (`cov.add_(cov.T)`).

    ## Why is this bad?
    torch does not buffer the source of a copy as NumPy does. Where the two views are
    contiguous (one row, whole rows) it raises "some elements of the input tensor and the
    written-to tensor refer to a single memory location"; elsewhere a right shift is
    **silently different by device**: on CPU the values read were already shifted and
    propagate (`[0,1,2,0,1,2,0,1,2,...]`), on CUDA the intended shift comes out
    (`[0,1,2,0,1,2,3,4,5,...]`, NVIDIA H100, measured). A rearranged full overlap raises.
    A left shift of whole rows raises the same way where the rows written and read overlap in a
    contiguous tensor (measured on CPU); a left shift along a later dimension of several rows
    (`x[:, :-k] = x[:, k:]`) reads ahead of what it writes: not reported.

    ## Example
    ```python
    import torch

    def delay(signal: torch.Tensor, k: int):
        signal[:, k:] = signal[:, :-k]
        return signal
    ```

    ## Use instead
    ```python
    import torch

    def delay(signal: torch.Tensor, k: int):
        signal[:, k:] = signal[:, :-k].clone()
        return signal
    ```

    ## Fix safety
    Unsafe: it is a correction. Where the overlapping copy does not raise on the CPU (a shift
    of several rows or columns of a 2-D tensor, a transposed view, a strided slice), the CPU
    computes the propagated values today and the copy makes it compute the intended shift:
    what the program computes changes, to what the author meant.
    """

    code = "TEN210"
    fix_safety = "unsafe"
    summary = "slice assignment from an overlapping view of the same tensor (`x[1:] = x[:-1]`); `.clone()` the source"
    events = ("in-place write",)
    calls = tuple(sorted(k.INPLACE_METHODS))  # ``x.add_(x.T)``: the in-place method's own operand

    def query(self, model, site) -> None:
        for event in model.events.find("write"):
            source, statement = event.detail.get("source"), event.detail.get("statement")
            written = event.value
            rearranged = _receiver_rearranged(event.node) if type(event.node) is ast.Call else None
            if rearranged and written.is_tensor and "ndarray" not in written.kinds:  # (LibCST only then)
                self._check_operand(site, site.node_of(event.node), rearranged)
            if source is None or statement is None or not written.is_tensor or "ndarray" in written.kinds:
                continue  # NumPy buffers overlapping copies
            if source.fresh or not source.storages & written.storages:
                continue  # a new tensor (arithmetic, a clone) or another tensor's memory
            target, assignment = site.node_of(event.node), site.node_of(statement)
            if target is not None and type(assignment) is cst.Assign:
                self._check(site, target, assignment.value, _view_named(model, site, event, statement.value, source))

    def _check(self, site, target: cst.Subscript, value: cst.BaseExpression, view=None) -> None:
        """``view``: the expression that made the view a name on the right-hand side holds."""
        read, rearranged = _unrearranged(bare(view if view is not None else value))
        source = read.value if type(read) is cst.Subscript else read
        if not bare(source).deep_equals(bare(target.value)):
            return
        overlap = _overlap(target, read)
        if overlap is None or (overlap == SAME and rearranged is None) or (overlap in (RIGHT, LEFT) and rearranged):
            return
        copied = method(bare(value), "clone")
        written, source_text = short_source(site, target), short_source(site, value)
        if overlap == SAME:
            effect = (f"the same elements rearranged by {rearranged}: it raises 'some elements of the input tensor "
                      "and the written-to tensor refer to a single memory location' where the views are contiguous, "
                      "elsewhere it silently reads elements it already overwrote")
        elif overlap == LEFT:
            effect = ("a left shift of whole rows: it raises 'some elements of the input tensor and the written-to "
                      "tensor refer to a single memory location' where the rows overlap in a contiguous tensor")
        else:
            effect = ("a right shift: it raises where the views are contiguous, elsewhere CPU propagates the values "
                      "already shifted while CUDA shifts them")
        site.report(
            self.code, value,
            f"'{written} = {source_text}' reads an overlapping view of what it writes, {effect}; "
            f"use {suggestion(site, copied, value)}",
            Fix(keep_parentheses(value, copied), safe=False))


    def _check_operand(self, site, call, rearranged: str) -> None:
        """``x.add_(x.T)``: an in-place method reading its receiver's elements rearranged (by the
        view ``rearranged`` names)."""
        if type(call) is not cst.Call or not call.args:
            return
        operand = call.args[0].value
        copied = method(bare(operand), "clone")
        site.report(
            self.code, operand,
            f"'{short_source(site, call)}' reads the elements it writes rearranged by {rearranged}: it raises 'some "
            "elements of the input tensor and the written-to tensor refer to a single memory location' where the views "
            f"are contiguous, elsewhere it silently reads elements it already overwrote; use {suggestion(site, copied, operand)}",
            Fix(keep_parentheses(operand, copied), safe=False))


def _receiver_rearranged(call: ast.Call) -> Optional[str]:
    """``x.add_(x.T)``: where the first argument is a rearranging view of the receiver, that view
    (the one nearest the receiver) as ``_unrearranged`` shows it (``.T``, ``t()``), else None."""
    if type(call.func) is not ast.Attribute or not call.args or type(call.args[0]) is ast.Starred:
        return None
    operand, rearranged = call.args[0], None
    while True:
        if type(operand) is ast.Call and type(operand.func) is ast.Attribute and "rearrange" in k.role_of(
                "method", operand.func.attr):
            operand, rearranged = operand.func.value, f"{operand.func.attr}()"
        elif type(operand) is ast.Attribute and "rearrange" in k.role_of("attribute", operand.attr):
            operand, rearranged = operand.value, f".{operand.attr}"
        else:
            return rearranged if ast.dump(operand) == ast.dump(call.func.value) else None


def _view_named(model, site, write, value: ast.expr, source) -> Optional[cst.BaseExpression]:
    """The view a name assigned from holds (``src = buf[:-1]`` then ``buf[1:] = src``): the one
    expression of this function that made it, where every path agrees."""
    views = [made for made in source.made if made[2] != "assignment"]  # not the names it passed through
    if type(value) is not ast.Name or len(views) != 1:
        return None
    made = views[0]
    found = [alias for alias in model.events.find("alias")
             if alias.detail["made"] == made and alias.function is write.function]
    return site.node_of(found[0].node) if len(found) == 1 else None


def _unrearranged(read: cst.BaseExpression):
    """(the expression under the views that put the same elements in another order, the last
    such view shown as ``t()`` or ``.mT``; None when there is none)."""
    rearranged = None
    while True:
        if type(read) is cst.Call and type(read.func) is cst.Attribute and "rearrange" in k.role_of(
                "method", read.func.attr.value):
            rearranged, read = f"{read.func.attr.value}()", bare(read.func.value)
        elif type(read) is cst.Attribute and "rearrange" in k.role_of("attribute", read.attr.value):
            rearranged, read = f".{read.attr.value}", bare(read.value)
        else:
            return read, rearranged


RULES = (OverlappingSliceAssignment(),)
