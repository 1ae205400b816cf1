"""What TEN209, TEN210 and TEN307 share: where an in-place write event of the model is reported,
what it wrote, and its out-of-place form (the fix)."""

import ast
from typing import NamedTuple, Optional, Tuple

import libcst as cst

from flake8_tensorcopy import knowledge as k
from flake8_tensorcopy.fixes import Fix
from flake8_tensorcopy.model.places import place_of
from flake8_tensorcopy.rules.base import written_code

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
    if type(statement) is cst.Expr and type(statement.value) is cst.Call and type(statement.value.func) is cst.Attribute:
        call = statement.value
        name = call.func.attr.value
        receiver = call.func.value
        if type(receiver) not in (cst.Name, cst.Attribute) or name[:-1] not in k.METHODS_RETURNING_TENSOR:
            return None
        value = call.with_changes(func=call.func.with_changes(attr=cst.Name(name[:-1])))
        return cst.Assign(targets=[cst.AssignTarget(target=receiver)], value=value)
    return None


class WriteSite(NamedTuple):
    """Where a ``write`` event is reported (the statement when the write is all of it), the
    ast expression it wrote, and the in-place method (empty for ``+=`` and ``x[i] = v``)."""

    node: cst.CSTNode
    written: ast.expr
    method: str
    held: Optional[str] = None  # what a method wrote of its own object (``model.inputs``), where no argument holds it


def write_site(site, event, helpers: bool = False) -> Optional[WriteSite]:
    """The site of a write the model recorded for a method call, an augmented assignment or an
    indexed assignment, and with ``helpers`` a call of a function of the file that writes what
    it is handed (None for other writes, or where LibCST does not have the node)."""
    node = event.node
    method = event.detail.get("method", "")
    if type(node) is ast.Call and not method and helpers and "through" in event.detail:
        written = _handed_written(node, event)
        held = _held_by_receiver(node, event) if written is None else None
        written = node.func.value if held is not None else written
        statement = site.statement_of(node)
        found = site.node_of(statement if statement is not None else node) if written is not None else None
        return WriteSite(found, written, method, held) if found is not None else None
    elif type(node) is ast.Call and method:
        statement = site.statement_of(node)
        found = site.node_of(statement if statement is not None else node)
        on_receiver = type(node.func) is ast.Attribute and node.func.attr == method
        written = node.func.value if on_receiver else node.args[0]  # ``F.relu(x, inplace=True)``
    elif type(node) is ast.AugAssign:
        found, written = site.node_of(node), node.target
    elif type(node) is ast.Subscript:
        statement = event.detail.get("statement")
        found = site.node_of(statement if type(statement) is ast.Assign else node)
        written = node.value
    else:
        return None
    return WriteSite(found, written, method) if found is not None else None


def _handed_written(call: ast.Call, event) -> Optional[ast.expr]:
    """The argument of a helper's call that holds what the helper wrote (``normalise_(p)``)."""
    holders = set(event.detail.get("holders", ())) | {event.place} - {None}
    arguments = list(call.args) + [keyword.value for keyword in call.keywords]
    arguments += [element for argument in arguments if type(argument) in (ast.List, ast.Tuple)
                  for element in argument.elts]
    for argument in arguments:  # the items of a list it is handed too (``normalise_all_([gates])``)
        argument = argument.value if type(argument) is ast.Starred else argument
        if place_of(memory_of(argument)) in holders:  # ``zero_first_(gates[1:])``: a part of what it holds
            return argument
    return None


def _held_by_receiver(call: ast.Call, event) -> Optional[str]:
    """The attribute of a method's own object that holds what it wrote (``model.inputs`` of
    ``model.drop_padding(m)``, where ``forward`` kept its input), else None."""
    receiver = place_of(call.func.value) if type(call.func) is ast.Attribute else None
    if receiver is None:
        return None
    return next((holder for holder in sorted(event.detail.get("holders", ())) if holder.startswith(receiver + ".")), None)


def memory_of(written: ast.expr) -> ast.expr:
    """The tensor whose memory a write to ``written`` changes: under indexing (not a constant
    key: ``cache["gates"]`` is a tensor of its own), views and aliases that share it
    (``.detach()``, ``.data``)."""
    while True:
        if type(written) is ast.Subscript and type(written.slice) is not ast.Constant:  # not a dict's key
            written = written.value
        elif type(written) is ast.Attribute and "detach" in k.role_of("attribute", written.attr):
            written = written.value
        elif type(written) is ast.Call and type(written.func) is ast.Attribute and (
                written.func.attr in k.VIEW_METHODS or "detach" in k.role_of("method", written.func.attr)):
            written = written.func.value
        else:
            return written


def out_of_place_fix(node: cst.CSTNode, written) -> Tuple[Optional[Fix], str]:
    """(the out-of-place rewrite, its code for the message) when ``node`` has one. Not for an
    attribute holding what may be a parameter (``self.proj.weight``, a leaf requiring grad):
    a module refuses a plain tensor assigned to a parameter's name (TypeError)."""
    rewritten = out_of_place(node)
    if rewritten is None:
        return None, ""
    if type(rewritten.targets[0].target) is cst.Attribute and written.grad and not written.graph:
        return None, ""
    return Fix(rewritten, safe=False), written_code(rewritten)


def innermost(events: list) -> list:
    """The writes less those holding another (``x.sub_(m).div_(s)``): the first write of a
    chain is the one reported."""
    inner = {id(event.node) for event in events}
    return [event for event in events if not any(
        id(child) in inner for child in ast.walk(event.node) if child is not event.node)]


def takes_everything(index) -> bool:
    """An index of full slices and ``...`` only (``[:]``, ``[...]``, ``[:, :]``): every position."""
    elements = index.elts if type(index) is ast.Tuple else [index]
    return all(type(element) is ast.Constant and element.value is Ellipsis or type(element) is ast.Slice
               and element.lower is None and element.upper is None and element.step is None for element in elements)
