"""What the file's own call sites say against a parameter's tensor annotation.

Annotations lie: a library annotates ``mean: torch.Tensor`` and passes the list in its config.
A call site of the file *disputes* an annotated parameter when it passes what is surely not a
tensor: a value whose kinds leave no room for one (a literal, a number, ``x.tolist()``), a value
read out of a configuration (``self.config.mean``, ``hparams["std"]``), or a parameter of the
caller annotated as something else (``gain: float``, ``Union[torch.Tensor, float]``: the caller
may pass the float), or arithmetic on such values. Unknown values and values that may be tensors
dispute nothing. A use only a tensor survives, in the callee, settles the dispute (``Model``).
"""

import ast
from typing import Optional

from flake8_tensorcopy.knowledge.conventions import config_named
from flake8_tensorcopy.model.places import place_of
from flake8_tensorcopy.model.values import Value

# Annotations of values that are never a tensor (containers of tensors are not tensors either).
NOT_TENSOR_ANNOTATIONS = frozenset({
    "int", "float", "bool", "str", "complex", "bytes", "list", "tuple", "dict", "set", "frozenset",
    "List", "Tuple", "Dict", "Set", "FrozenSet", "Sequence", "MutableSequence", "Mapping", "Iterable",
    "ndarray", "Number",
})
_MAY_BE_TENSOR = frozenset(("tensor", "?"))
_LITERALS = (ast.List, ast.Tuple, ast.Set, ast.Dict, ast.ListComp, ast.SetComp, ast.DictComp, ast.JoinedStr)


def disputes(node: ast.AST, value: Optional[Value], caller) -> bool:
    """Whether an argument (its node, its value in the caller) is surely not a tensor."""
    if value is not None and not value.kinds & _MAY_BE_TENSOR and value.kinds - {"none"}:
        return True
    kind = type(node)
    if kind is ast.Constant:
        return node.value is not None and node.value is not Ellipsis
    if kind in _LITERALS:
        return True
    if kind is ast.Name:
        annotation = _annotation_of(caller, node.id)
        return annotation is not None and not_tensor_annotation(annotation)
    if kind in (ast.Attribute, ast.Subscript):
        return _read_from_config(node)
    if kind is ast.BinOp:
        return disputes(node.left, None, caller) and disputes(node.right, None, caller)
    if kind is ast.UnaryOp:
        return disputes(node.operand, None, caller)
    if kind is ast.IfExp:
        return disputes(node.body, None, caller) and disputes(node.orelse, None, caller)
    return False


def _annotation_of(caller, name: str) -> Optional[ast.AST]:
    for parameter in caller.parameters if caller is not None else ():
        if parameter.arg == name:
            return parameter.annotation
    return None


def _read_from_config(node: ast.AST) -> bool:
    """``self.config.mean``, ``cfg.lr``, ``hparams["std"]``: read out of an object named as a
    configuration (the last attribute's own name does not count)."""
    while type(node) in (ast.Attribute, ast.Subscript):
        node = node.value
        name = node.id if type(node) is ast.Name else node.attr if type(node) is ast.Attribute else None
        if name is not None and config_named(name):
            return True
    return False


def not_tensor_annotation(annotation: ast.AST) -> bool:
    """``int``, ``List[float]``, ``Optional[float]``, ``float | None``, ``"Sequence[float]"``,
    ``Union[torch.Tensor, float]``: never surely a tensor."""
    if type(annotation) is ast.Constant and isinstance(annotation.value, str):
        try:
            annotation = ast.parse(annotation.value, mode="eval").body
        except SyntaxError:
            return False
    if type(annotation) is ast.BinOp and type(annotation.op) is ast.BitOr:
        return not_tensor_annotation(annotation.left) or not_tensor_annotation(annotation.right)
    if type(annotation) is ast.Subscript:
        wrapper = (place_of(annotation.value) or "").split(".")[-1]
        if wrapper in ("Optional", "Union"):
            inner = annotation.slice
            return any(not_tensor_annotation(member) for member in (inner.elts if type(inner) is ast.Tuple else [inner]))
        return wrapper in NOT_TENSOR_ANNOTATIONS
    return (place_of(annotation) or "").split(".")[-1] in NOT_TENSOR_ANNOTATIONS
