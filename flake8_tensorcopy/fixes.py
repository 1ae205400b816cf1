"""Building fixes: LibCST expressions that replace the node a finding points at.

A fix keeps whatever surrounds the node (comments, formatting, the parentheses around it are
the node's own ``lpar``/``rpar`` and are carried over) and spells torch the way the file does.
"""

from typing import Sequence

import libcst as cst

from flake8_tensorcopy.syntax import children_of


class Fix:
    """Replace the finding's node with ``replacement``. ``safe`` fixes never change what the
    program computes; unsafe ones remove an alias on purpose (``--unsafe-fixes``)."""

    __slots__ = ("replacement", "safe")

    def __init__(self, replacement: cst.BaseExpression, safe: bool):
        self.replacement = replacement
        self.safe = safe


# Expressions that can take ``.method()`` without parentheses.
_ATOMS = (cst.Name, cst.Attribute, cst.Call, cst.Subscript, cst.List, cst.Tuple, cst.Dict, cst.Set,
          cst.ListComp, cst.DictComp, cst.SetComp, cst.GeneratorExp, cst.SimpleString, cst.FormattedString)


def receiver(node: cst.BaseExpression) -> cst.BaseExpression:
    """``node`` ready to be the receiver of a method call (parenthesised when it must be)."""
    if isinstance(node, _ATOMS) or node.lpar:
        return node
    return node.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


def bare(node: cst.BaseExpression) -> cst.BaseExpression:
    """``node`` without its own parentheses (they stay with the node being replaced); a tuple
    or a generator keeps them, they are part of its syntax there."""
    if not getattr(node, "lpar", None) or type(node) in (cst.Tuple, cst.GeneratorExp):
        return node
    return node.with_changes(lpar=[], rpar=[])


def method(node: cst.BaseExpression, name: str, args: Sequence[cst.Arg] = ()) -> cst.Call:
    return cst.Call(func=cst.Attribute(value=receiver(node), attr=cst.Name(name)), args=list(args))


def chain(node: cst.BaseExpression, *names: str) -> cst.BaseExpression:
    """``node.a().b()`` for names ``a``, ``b``."""
    for name in names:
        node = method(node, name)
    return node


def keyword(name: str, value: cst.BaseExpression) -> cst.Arg:
    return cst.Arg(
        value=value,
        keyword=cst.Name(name),
        equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")),
    )


def positional(args: Sequence[cst.Arg]) -> list:
    """Arguments re-spaced for a new call: ``a, b`` whatever the old layout was."""
    fresh = []
    for index, arg in enumerate(args):
        comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")) if index < len(args) - 1 else cst.MaybeSentinel.DEFAULT
        fresh.append(arg.with_changes(comma=comma, whitespace_after_arg=cst.SimpleWhitespace("")))
    return fresh


def keep_parentheses(original: cst.BaseExpression, replacement: cst.BaseExpression) -> cst.BaseExpression:
    """The replacement wears the parentheses the original had: ``(x.clone().detach())``."""
    if getattr(original, "lpar", None):
        return replacement.with_changes(lpar=original.lpar, rpar=original.rpar)
    return replacement


def _is_method_call(node: cst.BaseExpression, name: str) -> bool:
    return (
        type(node) is cst.Call and type(node.func) is cst.Attribute and node.func.attr.value == name and not node.args
    )


def detached(node: cst.BaseExpression) -> cst.BaseExpression:
    """``node.detach()``, unless it already is one."""
    node = bare(node)
    return node if _is_method_call(node, "detach") else chain(node, "detach")


def detached_copy(node: cst.BaseExpression) -> cst.BaseExpression:
    """``node.detach().clone()`` spelled without repeating what ``node`` already does."""
    node = bare(node)
    if _is_method_call(node, "clone") and _is_method_call(node.func.value, "detach"):
        return node  # already x.detach().clone()
    if _is_method_call(node, "detach") and _is_method_call(node.func.value, "clone"):
        return chain(node.func.value.func.value, "detach", "clone")  # x.clone().detach()
    if _is_method_call(node, "clone"):
        return chain(node.func.value, "detach", "clone")  # x.clone(): one copy is enough
    return chain(detached(node), "clone")


def _comments_in(node: cst.CSTNode) -> list:
    comments = []
    stack = [node]
    while stack:
        current = stack.pop()
        if type(current) is cst.Comment:
            comments.append(current.value)
        stack.extend(reversed(children_of(current)))
    return comments


def _folded(node: cst.BaseExpression) -> cst.BaseExpression:
    """``node`` without a last call that repeats what its receiver already did."""
    if _is_method_call(node, "detach") or _is_method_call(node, "clone"):
        inner = node.func.value
        already_detached = _is_method_call(inner, "detach") or (
            _is_method_call(inner, "clone") and _is_method_call(inner.func.value, "detach")
        )
        if (node.func.attr.value == "detach" and already_detached) or (
            node.func.attr.value == "clone" and _is_method_call(inner, "clone")
        ):
            return keep_parentheses(node, _folded(inner))
    return node


class _RepeatedCopies(cst.CSTTransformer):
    def leave_Call(self, original_node, updated_node):
        return _folded(updated_node)


def without_repeated_copies(node: cst.BaseExpression) -> cst.BaseExpression:
    """A fix's replacement with repeated detaches and copies folded: ``x.detach().detach()`` is
    ``x.detach()``, ``x.detach().clone().detach()`` and ``x.clone().clone()`` are one copy
    (nested fixes compose into such chains; each fold keeps the values, dtype, device and grad)."""
    return node.visit(_RepeatedCopies())


def with_comments_of(original: cst.CSTNode, replacement: cst.BaseExpression) -> cst.BaseExpression:
    """Carry the comments inside ``original`` over: the replacement is wrapped in parentheses
    that hold them (``(  # why\n    new\n)``), so a fix never deletes a comment (nor repeats
    one a nested fix already carried into the replacement)."""
    comments = _comments_in(original)
    for kept in _comments_in(replacement):
        if kept in comments:
            comments.remove(kept)
    if not comments or not isinstance(replacement, cst.BaseExpression):
        return replacement
    indent = cst.SimpleWhitespace("    ")
    opening = cst.LeftParen(
        whitespace_after=cst.ParenthesizedWhitespace(
            first_line=cst.TrailingWhitespace(whitespace=cst.SimpleWhitespace("  "), comment=cst.Comment(comments[0])),
            empty_lines=[cst.EmptyLine(whitespace=indent, comment=cst.Comment(text)) for text in comments[1:]],
            indent=True,
            last_line=indent,
        )
    )
    closing = cst.RightParen(whitespace_before=cst.ParenthesizedWhitespace(indent=True))
    return replacement.with_changes(lpar=[opening], rpar=[closing])
