"""Where a fact about a value comes from, and whether a safe fix may rest on it.

RULES.md: a fix is *safe* only where the evidence for every value it rewrites is strong (made
by a torch API, or proven by use in the same module); on an annotation alone it is unsafe at
most, because annotations lie (libraries pass Python lists to parameters annotated Tensor).
"""

import enum
from typing import Iterable, Optional


class Evidence(enum.Enum):
    """The source of a fact, worded for messages ("'x' is a tensor: {value}")."""

    TORCH_API = "made by a torch API"
    TENSOR_METHOD = "the result of a tensor method"
    USE = "used as only a tensor can be"
    ISINSTANCE = "checked with isinstance"
    SUMMARY = "returned by a function of this module"
    MODULE_CALL = "the output of an nn.Module"
    ANNOTATION = "annotated as a tensor"
    # An item of a container (``for w in (t, extra)``, ``xs[1]``) holds the join of its items:
    # a tensor on some of them, maybe something else on others.
    SOME_ITEMS = "one of the items of a container not all known to be tensors"
    # A module-level (or enclosing) name another function rebinds (``global w``, ``nonlocal w``,
    # ``globals()["w"] = ...``): it holds whatever was assigned last, anywhere.
    REBOUND = "a name that another function may rebind"

    @property
    def strong(self) -> bool:
        """Whether a safe fix may rest on this evidence alone."""
        return self not in _WEAK


_WEAK = frozenset({Evidence.ANNOTATION, Evidence.SOME_ITEMS, Evidence.REBOUND})


def weakest(evidence: Iterable[Optional[Evidence]]) -> Optional[Evidence]:
    """The evidence that holds on every path: the weakest one (None when any path has none)."""
    result = None
    for item in evidence:
        if item is None:
            return None
        if result is None or (result.strong and not item.strong):
            result = item
    return result
