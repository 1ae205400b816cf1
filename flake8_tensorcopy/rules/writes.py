"""TEN209, TEN210, TEN307: in-place writes that cannot be made, or that break backward.

Each rule keeps its own facts about what a name (or a ``self`` attribute) holds: made by
``expand()``, an output of ``chunk()`` of a graph tensor, saved for backward by an operation.
A fact is keyed by the scope binding it describes: rebinding the name makes a new binding,
so the fact ends where the value it is about stops being named.
"""

from typing import List, Optional, Tuple

import libcst as cst

from flake8_tensorcopy.analysis.provenance import BACKWARD_FUNCTIONS, GRAD_STOPS
from flake8_tensorcopy.analysis.scope import INSTANCE, TENSOR, TENSOR_SEQ
from flake8_tensorcopy.analysis.statements import children_of, small_statements, suite_statements
from flake8_tensorcopy.data import INPLACE_METHODS, METHODS_RETURNING_TENSOR, SAVED_FOR_BACKWARD, VIEW_METHODS
from flake8_tensorcopy.fixes import Fix, bare, keep_parentheses, method
from flake8_tensorcopy.rules.base import Rule, short_source, suggestion, written_code

WRITE_CALLS = tuple(sorted(INPLACE_METHODS))

# ----- facts about what a name holds ---------------------------------------------------------


def _holder(analysis, node: cst.BaseExpression) -> Optional[Tuple[object, Optional[str]]]:
    """(binding, attribute) that ``node`` names: a name, or ``self.attr`` of a method's instance."""
    node = bare(node)
    if type(node) is cst.Name:
        binding = analysis.lookup(node.value)
        return (binding, None) if binding is not None else None
    if type(node) is cst.Attribute and type(node.value) is cst.Name:
        binding = analysis.lookup(node.value.value)
        if binding is not None and binding.kind == INSTANCE:
            return binding, node.attr.value
    return None


def remember(analysis, code: str, node: cst.BaseExpression, fact) -> None:
    """``node`` holds a value ``fact`` describes (None: nothing known any more)."""
    holder = _holder(analysis, node)
    if holder is not None:
        analysis.facts_for(code)[(id(holder[0]), holder[1])] = (holder[0], fact)


def recall(analysis, code: str, node: cst.BaseExpression):
    """The fact about the value ``node`` holds at this point of the walk, if any."""
    holder = _holder(analysis, node)
    if holder is None:
        return None
    entry = analysis.facts_for(code).get((id(holder[0]), holder[1]))
    return entry[1] if entry is not None and entry[0] is holder[0] else None


# ----- shapes of writes ---------------------------------------------------------------------


def _is_inplace_call(node: cst.BaseExpression) -> bool:
    return type(node) is cst.Call and type(node.func) is cst.Attribute and node.func.attr.value in INPLACE_METHODS


def _method_name(call: cst.Call) -> Optional[str]:
    return call.func.attr.value if type(call.func) is cst.Attribute else None


def _statement_of(analysis, call: cst.Call) -> Optional[cst.Expr]:
    """The statement ``call`` is, when it is a statement on its own line (``x.mul_(2)``)."""
    blocks = analysis.enclosing_blocks()
    if not blocks:
        return None
    statements, index = blocks[0]
    line = statements[index]
    if type(line) is not cst.SimpleStatementLine or len(line.body) != 1:
        return None
    statement = line.body[0]
    return statement if type(statement) is cst.Expr and statement.value is call else None


_AUGMENTED = {
    cst.AddAssign: cst.Add, cst.SubtractAssign: cst.Subtract, cst.MultiplyAssign: cst.Multiply,
    cst.DivideAssign: cst.Divide, cst.PowerAssign: cst.Power, cst.MatrixMultiplyAssign: cst.MatrixMultiply,
}


def out_of_place(statement: cst.CSTNode) -> Optional[cst.Assign]:
    """``x = x.mul(2)`` for ``x.mul_(2)``, ``x = x + d`` for ``x += d``: the same values in a
    new tensor bound to the same name, when there is such a form."""
    if type(statement) is cst.AugAssign:
        operator = _AUGMENTED.get(type(statement.operator))
        target = statement.target
        if operator is None or type(target) not in (cst.Name, cst.Attribute):
            return None
        value = cst.BinaryOperation(left=target, operator=operator(), right=statement.value)
        return cst.Assign(targets=[cst.AssignTarget(target=target)], value=value)
    if type(statement) is cst.Expr and type(statement.value) is cst.Call:
        call = statement.value
        name = _method_name(call)
        receiver = call.func.value if name else None
        if name is None or type(receiver) not in (cst.Name, cst.Attribute) or name[:-1] not in METHODS_RETURNING_TENSOR:
            return None
        value = call.with_changes(func=call.func.with_changes(attr=cst.Name(name[:-1])))
        return cst.Assign(targets=[cst.AssignTarget(target=receiver)], value=value)
    return None


class _WriteRule(Rule):
    """A rule about in-place writes: a method call (``x.mul_(2)``) or a statement (``x += 1``)."""

    fix_safety = "unsafe"
    calls = WRITE_CALLS
    events = ("in-place write",)

    def check_call(self, call: cst.Call, analysis) -> None:
        name = _method_name(call)
        if name is None or name not in INPLACE_METHODS or _is_inplace_call(call.func.value):
            return  # ``x.sub_(m).div_(s)``: the first write in the chain is the one reported
        statement = _statement_of(analysis, call)
        self.check_written(statement or call, call.func.value, name, analysis)

    def check_write(self, node, target, value, analysis) -> None:
        if type(node) is cst.AugAssign:
            self.check_written(node, target, "augmented assignment", analysis)

    def check_written(self, node: cst.CSTNode, written: cst.BaseExpression, how: str, analysis) -> None:
        """``node`` writes ``written`` in place (``how``: the method, or the statement)."""

    def fix_for(self, node: cst.CSTNode) -> Tuple[Optional[Fix], str]:
        """(the out-of-place rewrite, its code for the message) when ``node`` has one."""
        rewritten = out_of_place(node)
        if rewritten is None:
            return None, ""
        return Fix(rewritten, safe=False), written_code(rewritten)


# ----- TEN209 -------------------------------------------------------------------------------

EXPAND_METHODS = frozenset({"expand", "expand_as", "broadcast_to"})
SPLIT_METHODS = frozenset({"chunk", "split", "unbind", "split_with_sizes"})
SPLIT_FUNCTIONS = frozenset("torch." + name for name in SPLIT_METHODS)
ITERATION = "unbind() (iterating over it)"
# Writes of one value everywhere: measured to succeed on an expanded tensor (nothing overlaps wrongly).
UNIFORM_WRITES = frozenset({"fill_", "zero_"})


class Expanded:
    """Made by ``op`` (``expand()``...): one memory location stands at many positions."""

    __slots__ = ("op",)

    def __init__(self, op: str):
        self.op = op


class SplitOutput:
    """An output of ``op`` (``chunk()``, ``unbind()`` by iterating...) of a tensor in a graph
    (``waits_for``: only once a caller passes a tensor that requires grad as these parameters)."""

    __slots__ = ("op", "waits_for")

    def __init__(self, op: str, waits_for: Tuple[str, ...] = ()):
        self.op = op
        self.waits_for = waits_for


class SplitOutputs(SplitOutput):
    """The whole sequence ``x.chunk(n)`` returned: each item is a ``SplitOutput``."""


class UnwritableView(_WriteRule):
    """
    ## What it does
    Flags an in-place write to a tensor that cannot be written in place: the result of
    `expand()`/`expand_as()`/`broadcast_to()` (kept in a name, an attribute or a buffer), or
    an output of `chunk()`/`split()`/`unbind()` (also by iterating over the tensor) of a tensor
    in an autograd graph, written outside `torch.no_grad()`.

    ## Why is this bad?
    An expanded tensor repeats one memory location at many positions: `add_`, `mul_`,
    `copy_`, `+=` raise "unsupported operation: more than one element of the written-to
    tensor refers to a single memory location" on CPU and CUDA, and `masked_fill_` does not
    raise on CPU: it writes every position sharing the element (silently wrong). The outputs
    of `chunk()`/`split()`/`unbind()` of a graph tensor are views autograd cannot rebase: a
    write raises "Output 1 of SplitBackward0 is a view and is being modified inplace" on both
    devices (NVIDIA H100, measured). `fill_` and `zero_` of an expanded tensor succeed and
    are not reported.

    ## Example
    ```python
    import torch

    def positions(length: int, batch: int, offset: torch.Tensor):
        ids = torch.arange(length).expand(batch, -1)
        ids += offset
        return ids
    ```

    ## Use instead
    ```python
    import torch

    def positions(length: int, batch: int, offset: torch.Tensor):
        ids = torch.arange(length).expand(batch, -1)
        ids = ids + offset
        return ids
    ```
    or `.clone()` the expanded tensor (or the `chunk()` output) before writing it.

    ## Fix safety
    Unsafe: the out-of-place form binds a new tensor; where the write was meant to reach the
    tensor the view came from, that tensor no longer changes.
    """

    code = "TEN209"
    summary = "in-place write to an `expand()`ed tensor or a `chunk()`/`split()`/`unbind()` output raises"
    calls = WRITE_CALLS + ("register_buffer",)
    reads = ("callers",)  # a fact about a parameter waits for a call that passes a graph tensor

    def check_call(self, call: cst.Call, analysis) -> None:
        if _method_name(call) == "register_buffer":
            self._register_buffer(call, analysis)
        elif type(call.func) is cst.Name:
            self._called(call, analysis)
        else:
            super().check_call(call, analysis)

    # ----- facts --------------------------------------------------------------------------
    def _expanded(self, value: cst.BaseExpression, analysis) -> Optional[Expanded]:
        value = bare(value)
        if type(value) is not cst.Call:
            return None
        func = value.func
        if type(func) is cst.Attribute and func.attr.value in EXPAND_METHODS and analysis.kind_of(value) == TENSOR:
            return Expanded(func.attr.value + "()")
        if analysis.qualname(func) == "torch.broadcast_to":
            return Expanded("torch.broadcast_to()")
        return None

    def _split(self, value: cst.BaseExpression, analysis) -> Optional[Tuple[str, cst.BaseExpression]]:
        """(operation, source) when ``value`` is ``x.chunk(n)`` / ``torch.split(x, n)``."""
        value = bare(value)
        if type(value) is not cst.Call:
            return None
        func = value.func
        if type(func) is cst.Attribute and func.attr.value in SPLIT_METHODS and analysis.qualname(func) is None:
            return func.attr.value + "()", func.value
        qualname = analysis.qualname(func)
        if qualname in SPLIT_FUNCTIONS and value.args and value.args[0].keyword is None:
            return qualname + "()", value.args[0].value
        return None

    def _graph_split(self, op: str, source: cst.BaseExpression, analysis, outputs: type) -> Optional[SplitOutput]:
        """The fact for outputs of ``op`` on ``source``: known in a graph, or waiting for callers."""
        if analysis.no_grad_depth:
            return None
        if analysis.grad_of(source):
            return outputs(op)
        fact = recall(analysis, self.code, source)
        if isinstance(fact, SplitOutputs):
            return SplitOutput(fact.op, fact.waits_for) if outputs is SplitOutput else fact
        if type(bare(source)) is cst.Name and analysis.kind_of(source) == TENSOR and analysis.function is not None:
            parameters = _parameters_behind(analysis, bare(source).value)
            if parameters:
                return outputs(op, parameters)
        return None

    def _held(self, value: cst.BaseExpression, analysis):
        """What a name bound to ``value`` holds: an expanded tensor, a split output, the outputs."""
        expanded = self._expanded(value, analysis)
        if expanded is not None:
            return expanded
        split = self._split(value, analysis)
        if split is not None:
            return self._graph_split(split[0], split[1], analysis, SplitOutputs)
        value = bare(value)
        if type(value) is cst.Subscript and len(value.slice) == 1 and type(value.slice[0].slice) is cst.Index:
            split = self._split(value.value, analysis)
            if split is not None:
                return self._graph_split(split[0], split[1], analysis, SplitOutput)
            fact = recall(analysis, self.code, value.value)
            if isinstance(fact, SplitOutputs):
                return SplitOutput(fact.op, fact.waits_for)
        return None

    def check_binding(self, target, value, analysis, iterated: bool) -> None:
        if iterated:
            self._iterated(target, value, analysis)
            return
        if type(target) in (cst.Name, cst.Attribute):
            held = self._held(value, analysis)
            if held is not None or type(target) is cst.Attribute:  # a rebound name has a new binding already
                remember(analysis, self.code, target, held)
        elif type(target) in (cst.Tuple, cst.List):
            held = self._held(value, analysis)
            if isinstance(held, SplitOutputs):
                for element in target.elements:
                    remember(analysis, self.code, element.value, SplitOutput(held.op, held.waits_for))

    def _iterated(self, target, iterable, analysis) -> None:
        """``for row in x`` unbinds ``x``; ``zip(x, ...)`` and ``enumerate(x)`` hand its rows on."""
        pairs = [(target, iterable)]
        iterable = bare(iterable)
        if type(iterable) is cst.Call and type(iterable.func) is cst.Name and analysis.lookup(iterable.func.value) is None:
            arguments = [arg.value for arg in iterable.args if arg.keyword is None and not arg.star]
            elements = [element.value for element in target.elements] if type(target) in (cst.Tuple, cst.List) else []
            if iterable.func.value == "zip" and len(elements) == len(arguments):
                pairs = list(zip(elements, arguments))
            elif iterable.func.value == "enumerate" and len(elements) == 2 and arguments:
                pairs = [(elements[1], arguments[0])]
        for item, source in pairs:
            if type(item) is not cst.Name:
                continue
            if analysis.kind_of(source) == TENSOR or analysis.grad_of(source):
                fact = self._graph_split(ITERATION, source, analysis, SplitOutput)
            else:
                held = self._held(source, analysis) if analysis.kind_of(source) == TENSOR_SEQ else None
                fact = SplitOutput(held.op, held.waits_for) if isinstance(held, SplitOutputs) else None
            remember(analysis, self.code, item, fact)

    def _register_buffer(self, call: cst.Call, analysis) -> None:
        receiver = call.func.value
        if len(call.args) < 2 or type(call.args[0].value) is not cst.SimpleString:
            return
        expanded = self._expanded(call.args[1].value, analysis)
        holder = _holder(analysis, receiver)
        if expanded is not None and holder is not None and holder[1] is None and holder[0].kind == INSTANCE:
            attribute = cst.Attribute(value=bare(receiver), attr=cst.Name(call.args[0].value.evaluated_value))
            remember(analysis, self.code, attribute, expanded)

    # ----- writes -------------------------------------------------------------------------
    def check_written(self, node, written, how, analysis) -> None:
        fact = self._written_fact(written, analysis)
        if fact is None or (isinstance(fact, Expanded) and how in UNIFORM_WRITES):
            return
        if isinstance(fact, SplitOutput) and analysis.no_grad_depth:
            return
        subject = short_source(analysis, written)
        # a loop variable rebound out of place no longer writes the rows it was meant to change
        fix, code = self.fix_for(node) if getattr(fact, "op", None) != ITERATION else (None, "")
        if fix is not None:
            use = f"use {code}"
        elif isinstance(fact, Expanded):
            use = "clone() it where it is made"
        else:
            use = "compute it out of place (or write the whole tensor under torch.no_grad() to initialise it)"
        if isinstance(fact, Expanded):
            if how == "masked_fill_":
                effect = ("does not raise on CPU: it fills every position that shares the masked element "
                          "(silently wrong)")
            else:
                effect = "raises 'more than one element of the written-to tensor refers to a single memory location'"
            message = f"'{subject}' is made by {fact.op}: this in-place write {effect}; {use}"
            analysis.report(self.code, node, message, fix)
            return
        message = (f"'{subject}' is an output of {fact.op} of a tensor in an autograd graph: this in-place write "
                   f"raises 'Output ... is a view and is being modified inplace'; {use}")
        if not fact.waits_for:
            analysis.report(self.code, node, message, fix)
            return
        function = analysis.function
        pending = analysis.facts_for(self.code).setdefault("pending", {})
        pending.setdefault(function.name.value, []).append((function, fact.waits_for, node, message, fix))
        analysis.offer_calls(function.name.value, self)

    def _written_fact(self, written: cst.BaseExpression, analysis):
        written = bare(written)
        expanded = self._expanded(written, analysis)
        if expanded is not None:
            return expanded
        held = self._held(written, analysis)
        if isinstance(held, SplitOutput) and not isinstance(held, SplitOutputs):
            return held
        fact = recall(analysis, self.code, written)
        return None if isinstance(fact, SplitOutputs) else fact

    def _called(self, call: cst.Call, analysis) -> None:
        """A call of a function whose writes wait for a caller passing a graph tensor."""
        if type(call.func) is not cst.Name or analysis.no_grad_depth:
            return  # under no_grad the callee's views are made outside any graph
        binding = analysis.lookup(call.func.value)
        called = getattr(binding.origin, "node", None) if binding is not None else None
        for function, waits_for, node, message, fix in analysis.facts_for(self.code).get("pending", {}).get(
                call.func.value, ()):
            if called is not function:
                continue
            passed = _arguments_by_parameter(function, call)
            if any(name in passed and analysis.grad_of(passed[name]) for name in waits_for):
                analysis.report(
                    self.code, node, lambda lines, text=message: f"{text} (the call on line {lines['call']} passes "
                                                                 f"a tensor that requires grad)",
                    fix, refs={"call": call})


def _arguments_by_parameter(function: cst.FunctionDef, call: cst.Call) -> dict:
    """Parameter name -> the argument a call passes for it (positional or keyword)."""
    names = [param.name.value for param in list(function.params.posonly_params) + list(function.params.params)]
    passed = {}
    for index, arg in enumerate(call.args):
        if arg.star:
            break
        if arg.keyword is not None:
            passed[arg.keyword.value] = arg.value
        elif index < len(names):
            passed[names[index]] = arg.value
    return passed


def _parameters_behind(analysis, name: str) -> Tuple[str, ...]:
    """The parameters of the function being walked that the value of ``name`` is computed from
    (through every assignment of the function, flow-insensitively)."""
    function = analysis.function
    parameters = {param.name.value for param in list(function.params.posonly_params) + list(function.params.params)}
    sources = {}
    for small in small_statements(suite_statements(function.body)):
        if type(small) is cst.Assign:
            for target in small.targets:
                if type(target.target) is cst.Name:
                    sources.setdefault(target.target.value, []).append(small.value)
    seen, stack, found = set(), [name], set()
    while stack:
        current = stack.pop()
        if current in seen:
            continue
        seen.add(current)
        if current in parameters:
            found.add(current)
            continue
        for value in sources.get(current, ()):
            stack.extend(_names_read(value))
    return tuple(sorted(found))


def _names_read(node: cst.CSTNode) -> List[str]:
    names, stack = [], [node]
    while stack:
        current = stack.pop()
        if type(current) is cst.Name:
            names.append(current.value)
        elif type(current) is cst.Attribute:
            stack.append(current.value)  # ``x.shape``: ``x``, not the attribute's name
        else:
            stack.extend(children_of(current))
    return names


# ----- TEN210 -------------------------------------------------------------------------------

# Views that put the same elements in another order: a full overlap with a permuted copy.
REARRANGING_METHODS = frozenset({"transpose", "t", "permute", "swapaxes", "swapdims", "movedim", "moveaxis", "mT",
                                 "T", "mH", "H"})
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


def _overlap(written: cst.Subscript, read: cst.BaseExpression) -> Optional[str]:
    """RIGHT for a right shift, SAME for a full overlap, else None (safe, or not known)."""
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
    return RIGHT if all(kind == RIGHT for kind in shifts) else None


class OverlappingSliceAssignment(Rule):
    """
    ## What it does
    Flags a slice assignment whose right-hand side is an overlapping view of the tensor it
    writes: a right shift (`buf[:, k:] = buf[:, :-k]`, `x[1:] = x[:-1]`) or the same block
    rearranged (`x[1] = x[1].transpose(-2, -1)`).

    ## Why is this bad?
    torch does not buffer the source of a copy as NumPy does. Where the two views are
    contiguous (one row, whole rows) it raises "some elements of the input tensor and the
    written-to tensor refer to a single memory location"; elsewhere a right shift is
    **silently different by device**: on CPU the values read were already shifted and
    propagate (`[0,1,2,0,1,2,0,1,2,...]`), on CUDA the intended shift comes out
    (`[0,1,2,0,1,2,3,4,5,...]`, NVIDIA H100, measured). A rearranged full overlap raises.
    A left shift (`x[:, :-k] = x[:, k:]`) reads ahead of what it writes: not reported.

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

    def check_write(self, node, target, value, analysis) -> None:
        if type(node) is not cst.Assign or type(target) is not cst.Subscript:
            return
        base = target.value
        if analysis.kind_of(base) != TENSOR:
            return  # NumPy buffers overlapping copies
        read, rearranged = bare(value), None
        while type(read) in (cst.Call, cst.Attribute):
            name = _method_name(read) if type(read) is cst.Call else read.attr.value
            if name not in REARRANGING_METHODS:
                break
            rearranged = f"{name}()" if type(read) is cst.Call else f".{name}"
            read = bare(read.func.value if type(read) is cst.Call else read.value)
        source = read.value if type(read) is cst.Subscript else read
        if not bare(source).deep_equals(bare(base)):
            return
        overlap = _overlap(target, read)
        if overlap is None or (overlap == SAME and rearranged is None) or (overlap == RIGHT and rearranged):
            return
        copied = method(bare(value), "clone")
        written, source_text = short_source(analysis, target), short_source(analysis, value)
        if overlap == SAME:
            effect = (f"the same elements rearranged by {rearranged}: it raises 'some elements of the input tensor "
                      "and the written-to tensor refer to a single memory location'")
        else:
            effect = ("a right shift: it raises where the views are contiguous, elsewhere CPU propagates the values "
                      "already shifted while CUDA shifts them")
        analysis.report(
            self.code, value,
            f"'{written} = {source_text}' reads an overlapping view of what it writes, {effect}; "
            f"use {suggestion(analysis, copied, value)}",
            Fix(keep_parentheses(value, copied), safe=False))


# ----- TEN307 -------------------------------------------------------------------------------

_OPERATORS = {cst.Multiply: "mul", cst.Divide: "div", cst.MatrixMultiply: "matmul", cst.Power: "pow"}


class Saved:
    """Saved for backward by ``op`` at ``node`` (``what``: "output" or "input"), after small
    statement ``statement`` of ``function`` (a graph is followed within the function that built it)."""

    __slots__ = ("op", "node", "what", "statement", "function")

    def __init__(self, op: str, node: cst.CSTNode, what: str, analysis):
        self.op = op
        self.node = node
        self.what = what
        self.statement = analysis.statement_index
        self.function = analysis.function


class WriteToSavedTensor(_WriteRule):
    """
    ## What it does
    Flags an in-place write (a method, `+=`, an indexed assignment, through `.detach()`,
    `.data` or a view) to a tensor that an earlier recorded operation saved for backward,
    before the backward that needs it: `y = torch.sigmoid(x); y.mul_(2)`,
    `h = conv(x); x.masked_fill_(mask, 0)`. Which operations save their inputs or their
    output is probed from torch (`scripts/generate_torch_tables.py`). Where TEN301 reports the
    same write through `.data`, TEN301 alone speaks.

    ## Why is this bad?
    backward raises "one of the variables needed for gradient computation has been modified
    by an inplace operation", also when the write ran under `torch.no_grad()` (measured);
    through `.data` it does not raise and computes **wrong gradients**. The saving operation
    only has to be recorded: `nn.Conv1d` saves its input for the weight's gradient even when
    that input does not require grad. Reported when the write comes before a backward in the
    same function or the function returns the graph to its caller.

    ## Example
    ```python
    import torch

    def gate_penalty(scores):
        gates = torch.sigmoid(scores.requires_grad_())
        gates *= 2
        return gates.sum()
    ```

    ## Use instead
    ```python
    import torch

    def gate_penalty(scores):
        gates = torch.sigmoid(scores.requires_grad_())
        gates = gates * 2
        return gates.sum()
    ```

    ## Fix safety
    Unsafe: the out-of-place form binds a new tensor; other names of the old one no longer
    see the change.
    """

    code = "TEN307"
    summary = "in-place write to a tensor saved for backward: backward raises (through `.data`: wrong gradients)"
    calls = WRITE_CALLS + ("backward", "grad")
    yields_to = ("TEN301",)  # a write through ``.data`` that TEN301 reports: its code for that hazard

    def check_call(self, call: cst.Call, analysis) -> None:
        name = _method_name(call)
        if name == "backward" or analysis.qualname(call.func) in BACKWARD_FUNCTIONS:
            analysis.facts_for(self.code)[("backward", id(analysis.function))] = (None, analysis.statement_index)
        elif name is not None:
            super().check_call(call, analysis)

    def check_write(self, node, target, value, analysis) -> None:
        if type(node) is cst.Assign:
            self.check_written(node, target, "indexed assignment", analysis)
        else:
            super().check_write(node, target, value, analysis)

    # ----- what is saved ------------------------------------------------------------------
    def _saving(self, value: cst.BaseExpression, analysis) -> Optional[Tuple[str, tuple, list]]:
        """(operation, what it saves, its inputs) when ``value`` saves something for backward."""
        value = bare(value)
        if type(value) is cst.BinaryOperation:
            name = _OPERATORS.get(type(value.operator))
            if name is None:
                return None
            symbol = cst.Module([]).code_for_node(value.operator).strip()
            return f"'{symbol}' ({name})", SAVED_FOR_BACKWARD.get("torch.Tensor." + name, ()), [value.left, value.right]
        if type(value) is not cst.Call:
            return None
        func = value.func
        arguments = [arg.value for arg in value.args if arg.keyword is None and not arg.star]
        qualname = analysis.qualname(func)
        if qualname is not None:
            return qualname + "()", SAVED_FOR_BACKWARD.get(qualname, ()), arguments
        layer = analysis.provenance.layer_of(func)
        if layer is not None:
            return f"{short_source(analysis, func)} ({layer})", SAVED_FOR_BACKWARD.get(layer, ()), arguments
        if type(func) is cst.Attribute and analysis.kind_of(func.value) == TENSOR:
            name = func.attr.value
            return f".{name}()", SAVED_FOR_BACKWARD.get("torch.Tensor." + name, ()), [func.value] + arguments
        return None

    def check_binding(self, target, value, analysis, iterated: bool) -> None:
        if iterated or type(target) not in (cst.Name, cst.Attribute):
            return
        saving = self._saving(value, analysis)
        if saving is None or not analysis.grad_of(value):
            if type(target) is cst.Attribute:  # a rebound name has a new binding already
                remember(analysis, self.code, target, None)
            return
        op, saved, inputs = saving
        remember(analysis, self.code, target, Saved(op, value, "output", analysis) if "output" in saved else None)
        for position in saved:
            if position != "output" and position < len(inputs) and not bare(inputs[position]).deep_equals(target):
                remember(analysis, self.code, inputs[position], Saved(op, value, "input", analysis))

    # ----- writes -------------------------------------------------------------------------
    def check_written(self, node, written, how, analysis) -> None:
        root, through_data = _memory_of(written)
        fact = recall(analysis, self.code, root)
        if fact is None or fact.function is not analysis.function:
            return
        last_backward = analysis.facts_for(self.code).get(("backward", id(analysis.function)))
        if last_backward is not None and last_backward[1] > fact.statement:
            return  # the backward that needed it already ran
        if not _backward_follows(analysis) and not _returns_a_value(analysis.function):
            return
        name = short_source(analysis, root)
        fix, code = (None, "") if through_data else self.fix_for(node)
        use = f"use {code}" if fix is not None else f"compute it out of place or write a {name}.clone()"
        if through_data:
            effect = "through .data backward does not raise but computes wrong gradients silently"
        else:
            effect = ("backward raises 'one of the variables needed for gradient computation has been modified by "
                      "an inplace operation'")
        analysis.report(
            self.code, node,
            lambda lines: (f"'{name}' was saved for backward by {fact.op} on line {lines['saved']} (its {fact.what}) "
                           f"and is written in place before that backward: {effect}; {use}"),
            fix, refs={"saved": fact.node})


def _memory_of(written: cst.BaseExpression) -> Tuple[cst.BaseExpression, bool]:
    """The tensor whose memory a write to ``written`` changes (through indexing, views,
    ``.detach()``, ``.data``), and whether ``.data`` was on the way."""
    node, through_data = bare(written), False
    while True:
        if type(node) is cst.Subscript:
            node = node.value
        elif type(node) is cst.Attribute and node.attr.value == "data":
            node, through_data = node.value, True
        elif type(node) is cst.Call and _method_name(node) in VIEW_METHODS | {"detach"}:
            node = node.func.value
        else:
            return node, through_data
        node = bare(node)


def _backward_follows(analysis) -> bool:
    """Whether a statement after the current one (in its block or an enclosing one) runs backward."""
    for statements, index in analysis.enclosing_blocks():
        for statement in statements[index + 1:]:
            stack = [statement]
            while stack:
                node = stack.pop()
                if type(node) is cst.Call and (
                    (type(node.func) is cst.Attribute and node.func.attr.value == "backward")
                    or analysis.qualname(node.func) in BACKWARD_FUNCTIONS
                ):
                    return True
                if type(node) not in (cst.FunctionDef, cst.ClassDef, cst.Lambda):
                    stack.extend(children_of(node))
    return False


def _returns_a_value(function: Optional[cst.FunctionDef]) -> bool:
    """Whether the function returns something that may carry its graph to the caller."""
    if function is None:
        return False
    return any(
        type(small) is cst.Return and small.value is not None and _may_carry_graph(small.value)
        for small in small_statements(suite_statements(function.body))
    )


_AS_NUMBERS = frozenset({"float", "int", "bool", "len", "round", "str"})


def _may_carry_graph(node: cst.CSTNode) -> bool:
    """Whether a returned expression may hold a tensor with a graph: it reads a name, and not
    only through a conversion to a number or a result that never requires grad (``argmax()``)."""
    node_type = type(node)
    if node_type is cst.Name:
        return node.value not in ("None", "True", "False")
    if node_type is cst.Call:
        func = node.func
        if type(func) is cst.Attribute and func.attr.value in GRAD_STOPS:
            return False
        if type(func) is cst.Name and func.value in _AS_NUMBERS:
            return False
    if node_type is cst.Attribute:
        return _may_carry_graph(node.value)
    return any(_may_carry_graph(child) for child in children_of(node))


RULES = (UnwritableView(), OverlappingSliceAssignment(), WriteToSavedTensor())
