"""TEN205: a move or cast that may return its tensor itself, kept while one side is written, as a
query of the model (a move the model proves a copy, ``copy=True``, under ``if x.dtype != d`` or
of a tensor whose dtype it knows to be another, ``torch.arange(n).float()``, makes no alias)."""

from typing import Optional

import libcst as cst

from flake8_tensorcopy.fixes import Fix, bare, keyword, method
from flake8_tensorcopy.rules.sharing import AliasRule, Sharing, fills_a_blank_buffer, unsafe

_SPACE = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))


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
    kinds = ("move",)
    summary = "`.cpu()`/`.to()`/`.float()`/`.contiguous()` may return the same tensor; add `copy=True` or `.clone()`"
    use_instead = ".to(..., copy=True) or .clone() on the result"

    def hazard(self, model, sharing: Sharing) -> bool:
        return not fills_a_blank_buffer(sharing)

    def fix(self, node, alias, site) -> Optional[Fix]:
        """``copy=True`` where ``.to`` takes it (``.cpu()`` spelled ``.to("cpu", copy=True)``),
        else ``.clone()`` of the result."""
        if type(node) is not cst.Call:
            return None
        if type(node.func) is cst.Attribute:
            name = node.func.attr.value
            copy = keyword("copy", cst.Name("True"))
            if name == "cpu" and not node.args:
                to = node.func.with_changes(attr=cst.Name("to"))
                args = [cst.Arg(cst.SimpleString('"cpu"'), comma=_SPACE), copy]
                return unsafe(node, node.with_changes(func=to, args=args, lpar=[], rpar=[]))
            said = [argument for argument in node.args if argument.keyword is not None and argument.keyword.value == "copy"]
            if name == "to" and said:  # ``copy=False`` said: say True instead
                args = [copy.with_changes(comma=argument.comma) if argument in said else argument
                        for argument in node.args]
                return unsafe(node, node.with_changes(args=args, lpar=[], rpar=[]))
            positional = [argument for argument in node.args if argument.keyword is None and not argument.star]
            if name == "to" and node.args and len(positional) <= 2:  # a third may be ``copy`` itself
                last = node.args[-1].with_changes(comma=_SPACE)
                return unsafe(node, node.with_changes(args=list(node.args[:-1]) + [last, copy], lpar=[], rpar=[]))
        return unsafe(node, method(bare(node), "clone"))


RULE = MoveMayShare()
