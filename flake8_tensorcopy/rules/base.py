"""What every rule is: a code, a one-line summary, the call names it inspects, its doc."""

import inspect
from typing import Optional, Tuple

import libcst as cst


class Rule:
    """Base of all rules. A rule's class docstring is its documentation page.

    ``calls`` lists the names of the calls the rule inspects (the last part of the dotted
    name: ``tensor`` for ``torch.tensor``). The engine uses them twice: a file that calls none
    of them is never parsed by LibCST, and the shared walk offers a rule only those calls.
    Rules reported by the alias analysis (``tracks_aliases``) need an in-place write instead.
    """

    code = ""
    summary = ""
    fix_safety = "unsafe"  # what tensorcopy-fix offers: "safe", "unsafe" or "none"
    calls: Tuple[str, ...] = ()
    attributes: Tuple[str, ...] = ()  # attribute names offered to ``check_attribute``
    tracks_aliases = False
    checks_comparisons = False
    checks_accumulations = False

    def wants(self, features) -> bool:
        """Whether a file with these ``engine.Features`` may hold a finding of this rule."""
        if self.tracks_aliases:
            return features.writes and features.may_hold_tensors
        return not features.called.isdisjoint(self.calls) or not features.attributes.isdisjoint(self.attributes)

    def check_call(self, call: cst.Call, analysis) -> None:
        """Called for every call whose name is in ``calls``."""

    def check_attribute(self, node: cst.Attribute, analysis, store: bool) -> None:
        """Called for every ``x.name`` with ``name`` in ``attributes`` (``store``: assigned to)."""

    @classmethod
    def documentation(cls) -> str:
        return inspect.cleandoc(cls.__doc__ or "")


def argument(call: cst.Call, position: int, keyword: str) -> Optional[cst.BaseExpression]:
    """The expression passed as positional ``position`` or as ``keyword=``, if any."""
    index = 0
    for arg in call.args:
        if arg.keyword is not None:
            if arg.keyword.value == keyword:
                return arg.value
        elif arg.star:
            return None
        else:
            if index == position:
                return arg.value
            index += 1
    return None


def fix_evidence(analysis, node: cst.BaseExpression) -> Tuple[bool, str]:
    """(safe?, what the message adds) for a fix rewriting ``node`` as a tensor. RULES.md: safe
    only on strong evidence (a torch API made it, or a use proved it), never on an annotation
    alone; the message then says what the finding rests on."""
    evidence = analysis.evidence_of(node)
    if evidence is not None and evidence.strong:
        return True, ""
    reason = evidence.value if evidence is not None else "no proof"
    return False, f" ('{short_source(analysis, node)}' is a tensor by weak evidence, {reason}: the fix is unsafe)"


def short_source(analysis, node: cst.CSTNode, limit: int = 40) -> str:
    """The node's source on one line, shortened for a message."""
    text = " ".join(analysis.source_of(node).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."
