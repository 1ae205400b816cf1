"""What every rule is: a code, a one-line summary, what it subscribes to (the gate derives from it), its doc."""

import inspect
from typing import Optional, Tuple

import libcst as cst

from flake8_tensorcopy.syntax import names_under
from flake8_tensorcopy.codes import is_opinionated
from flake8_tensorcopy.fixes import bare, without_repeated_copies
from flake8_tensorcopy.scan import EVENTS, TRAITS


class Rule:
    """Base of all rules. A rule's class docstring is its documentation page.

    A rule decides in ``query(model, site)``, called once per file it wants, from the values
    and events of the model (``flake8_tensorcopy.model``: one abstract interpreter over the
    stdlib ast), and reports through ``site`` (``engine.ModelSite``), which maps an event's ast
    node to the LibCST node its fix rewrites. Whether a file (or a function, class or method
    body) is worth a model at all, and which bodies LibCST parses, is the gate, derived from
    these declarations so the two cannot drift apart (tests/test_gate.py checks it):

    - ``calls``: the last part of the dotted names of the calls it reports on (``tensor`` for
      ``torch.tensor``, import aliases resolved);
    - ``attributes``: attribute names it reports on;
    - ``events``: names from ``scan.EVENTS`` (the syntax where its hazard can arise: "sharing",
      "in-place write", "identity comparison", "accumulation", "non-blocking copy");
    - ``requires``: names from ``scan.TRAITS`` that must all hold where it reports (every rule
      requires "tensors"; the flake8 face checks that one before importing the engine);
    - ``reads``: what it reads beyond the code it reports in: "stores on self" (every method of
      the file's classes that stores on ``self``: ``scan._stores_on``), "callers" (every body
      that calls a function of the file whose body the rule wants), "summaries" (the bodies of
      called functions and methods whose summary a call site needs) or an event name (every
      body where that event may happen).

    A new rule declares these and needs no edit of the scan, the engine or the model; a new
    kind of event needs its scan condition in ``scan.EVENTS`` and an example in
    tests/test_gate.py. ``wants`` is not to be overridden: a condition the declarations cannot
    say belongs in the rule's query, not in the gate.
    """

    code = ""
    summary = ""
    fix_safety = "unsafe"  # what tensorcopy-fix offers: "safe", "unsafe" or "none"
    calls: Tuple[str, ...] = ()
    attributes: Tuple[str, ...] = ()
    events: Tuple[str, ...] = ()
    requires: Tuple[str, ...] = ("tensors",)
    reads: Tuple[str, ...] = ()
    # codes whose finding covering the same expression already names this rule's hazard: this
    # rule's finding steps aside there (an opinionated rule yields to every hazard rule)
    yields_to: Tuple[str, ...] = ()

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if "wants" in vars(cls):
            raise TypeError(f"{cls.__name__} overrides wants(): declare calls, attributes, events or requires")
        unknown = (set(cls.events) - set(EVENTS)) | (set(cls.requires) - set(TRAITS)) | (
            set(cls.reads) - set(EVENTS) - {"stores on self", "callers", "summaries"})
        if unknown or "tensors" not in cls.requires:
            raise TypeError(f"{cls.__name__}: unknown events, traits or reads {sorted(unknown)}, "
                            "or it does not require 'tensors'")

    @property
    def opinionated(self) -> bool:
        """A TEN9xx style code: off unless a selection names it (bugbear's B9xx; ``codes.selects``)."""
        return is_opinionated(self.code)

    def wants(self, features) -> bool:
        """Whether a file (or a body) with these ``scan.Features`` may hold a finding of this rule."""
        return features.traits.issuperset(self.requires) and (
            not features.called.isdisjoint(self.calls)
            or not features.attributes.isdisjoint(self.attributes)
            or not features.events.isdisjoint(self.events)
        )

    def reads_stores_on_self(self, features) -> bool:
        """Whether, for this rule, every method of the file's classes that stores on ``self`` is
        parsed, even in a class it is offered nothing in."""
        return "stores on self" in self.reads and self.wants(features)

    def reads_body(self, file_features, body_features) -> bool:
        """Whether the rule, wanting the file, reads a body with these features where it is
        offered nothing (a function that writes a buffer another one copies from)."""
        return not body_features.events.isdisjoint(self.reads) and self.wants(file_features)

    def query(self, model, site) -> None:
        """Decide from the model's values and events; report through ``site.report``."""

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


def short_source(analysis, node: cst.CSTNode, limit: int = 40) -> str:
    """The node's source on one line, shortened for a message after a space (else after a dot
    or an opening bracket), so no name, number or string is cut in two where it can be helped."""
    text = " ".join(analysis.source_of(node).split())
    if len(text) <= limit:
        return text
    head = text[: limit - 3]
    cut = head.rfind(" ")
    if cut <= 0:
        cut = max(head.rfind(mark) for mark in ".([{")
    return (head[: cut + 1] if cut > 0 else head) + "..."


_EMPTY = cst.Module([])
SUGGESTION_LIMIT = 100  # longer "use ..." code names its subject by a placeholder instead
PLACEHOLDERS = ("t", "x", "tensor")


class _Placeholder(cst.CSTTransformer):
    """Put ``name`` wherever ``subject`` is (with or without parentheses)."""

    def __init__(self, subject: cst.BaseExpression, name: str):
        self.subject = bare(subject)
        self.name = name

    def _is_subject(self, node) -> bool:
        return isinstance(node, cst.BaseExpression) and bare(node).deep_equals(self.subject)

    def on_visit(self, node) -> bool:
        return not self._is_subject(node)

    def on_leave(self, original_node, updated_node):
        return cst.Name(self.name) if self._is_subject(original_node) else updated_node


def written_code(replacement: cst.BaseExpression) -> str:
    """The code the fixer writes for ``replacement`` (repeated copies folded), without the
    parentheses the replaced node wore (they stay around it)."""
    return _EMPTY.code_for_node(without_repeated_copies(bare(replacement)))


def suggestion(analysis, replacement: cst.BaseExpression, subject: cst.BaseExpression) -> str:
    """A message's "use ..." code: exactly what the fix writes. Longer than a line, a
    placeholder stands for ``subject`` and the message says what it is; never cut mid-token."""
    code = written_code(replacement)
    if "\n" not in code and len(code) <= SUGGESTION_LIMIT:
        return code
    names = names_under([replacement])
    name = next((candidate for candidate in PLACEHOLDERS if candidate not in names), None)
    if type(bare(subject)) is not cst.Name and name is not None:
        short = written_code(replacement.visit(_Placeholder(subject, name)))
        if "\n" not in short:
            return f"{short} ({name} = '{short_source(analysis, subject)}')"
    return code if "\n" not in code else "the rewrite tensorcopy-fix offers"


def on_accelerator(node: cst.BaseExpression) -> bool:
    """``x.cuda()`` / ``x.to("cuda")`` with no ``.cpu()`` after it in the chain."""
    while type(node) is cst.Call and type(node.func) is cst.Attribute:
        method = node.func.attr.value
        if method == "cpu":
            return False
        if method == "cuda":
            return True
        if method == "to" and any(
            type(arg.value) is cst.SimpleString and arg.value.evaluated_value.startswith("cuda") for arg in node.args
        ):
            return True
        node = node.func.value
    return False


def evidence_note(site, value, node: cst.BaseExpression) -> Tuple[bool, str]:
    """(safe?, what the message adds) for a fix rewriting ``node``, whose model value is
    ``value``, as a tensor: safe only on strong evidence that it is one (RULES.md); else the
    message says what the finding rests on."""
    evidence = value.evidence("kind")
    if evidence is not None and evidence.strong:
        return True, ""
    reason = evidence.value if evidence is not None else "no proof"
    return False, f" ('{short_source(site, node)}' is a tensor by weak evidence, {reason}: the fix is unsafe)"


def call_argument(event, position: int, keyword: str):
    """The model value a call event passed as positional ``position`` or as ``keyword=``."""
    arguments = event.detail.get("arguments", ())
    node = event.node
    if position < len(node.args) and not any(type(arg).__name__ == "Starred" for arg in node.args[:position + 1]):
        return arguments[position] if position < len(arguments) else None
    return event.detail.get("keywords", {}).get(keyword)
