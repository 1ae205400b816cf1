"""Fixing one source string: what ``tensorcopy-fix`` does to a file, without touching disk.

Fixes are LibCST node replacements carried by the findings. One pass applies them all, from
the inside out: a fix nested in another's code (``torch.tensor(torch.tensor(x))``) is applied
first and the outer replacement is built over its result, then repeated copies the nesting
spelled twice are folded (``x.detach().clone().detach().clone()`` is ``x.detach().clone()``).
The source is linted again after each pass until nothing is left to fix: one run settles.

``# noqa``: a silenced finding is not fixed, and neither is a fix whose code holds a silenced
finding (``torch.tensor(w.clone().detach())  # noqa: TEN104`` keeps the TEN101 fix off, since
it would rewrite the ``clone().detach()`` the comment keeps) or a line with a bare ``# noqa``:
a fix never rewrites code a comment silenced.
"""

import re
from dataclasses import dataclass, field
from typing import Dict, List, Sequence

import libcst as cst

from flake8_tensorcopy.engine import Finding, lint_module, source_errors_only
from flake8_tensorcopy.fixes import without_repeated_copies, with_comments_of
from flake8_tensorcopy.rules import ALL_RULES

MAX_PASSES = 10

# flake8's spelling: ``# noqa`` alone silences every code, ``# noqa: TEN101,E501`` those listed.
NOQA = re.compile(r"#\s*noqa(?::[\s]?(?P<codes>[A-Z]+[0-9]+(?:[,\s]+[A-Z]+[0-9]+)*))?", re.IGNORECASE)


@dataclass
class FixResult:
    source: str  # the source after fixing (the input when nothing applied)
    applied: List[Finding] = field(default_factory=list)  # findings fixed, over all passes
    remaining: List[Finding] = field(default_factory=list)  # findings of the result, noqa excluded
    unstable: bool = False  # fixes were still pending after MAX_PASSES passes

    @property
    def changed(self) -> bool:
        return bool(self.applied)


def source_lines(source: str) -> List[str]:
    """Lines as Python and LibCST count them (not at form feeds, as ``str.splitlines`` does)."""
    return re.split(r"\r\n|\r|\n", source)


def suppressed(finding: Finding, lines: Sequence[str]) -> bool:
    """Whether a ``# noqa`` comment on the finding's line silences its code."""
    if finding.line > len(lines):
        return False
    match = NOQA.search(lines[finding.line - 1])
    if match is None:
        return False
    codes = match.group("codes")
    if codes is None:
        return True
    return any(finding.code.startswith(code.upper()) for code in re.split(r"[,\s]+", codes) if code)


def fixable(finding: Finding, unsafe: bool) -> bool:
    return finding.fix is not None and (unsafe or finding.fix.safe)


def _span(finding: Finding) -> tuple:
    return (finding.line, finding.col), (finding.end_line, finding.end_col)


def _within(inner: tuple, outer: tuple) -> bool:
    return outer[0] <= inner[0] and inner[1] <= outer[1]


def _rewrites_silenced(finding: Finding, silenced: Sequence[Finding], lines: Sequence[str]) -> bool:
    """Whether the fix's code holds a finding a ``# noqa`` silenced, or a bare ``# noqa`` line."""
    span = _span(finding)
    if any(_within(_span(other), span) for other in silenced):
        return True
    for line in lines[finding.line - 1:finding.end_line]:
        match = NOQA.search(line)
        if match is not None and match.group("codes") is None:
            return True
    return False


def fix_source(source: str, rules=ALL_RULES, unsafe: bool = False) -> FixResult:
    """Apply the fixes of ``rules`` to ``source`` until stable. Raises engine.SourceError and
    nothing else: rewriting walks the whole tree, so a file whose lint needs no deep walk (a
    long attribute chain beside the finding) may still be too deeply nested to fix."""
    with source_errors_only():
        return _fixed(source, rules, unsafe)


def _fixed(source: str, rules, unsafe: bool) -> FixResult:
    result = FixResult(source)
    rejected = set()  # (code, node source) of fixes that would not have made valid code
    for _ in range(MAX_PASSES):
        module, findings = lint_module(result.source, rules=rules)
        lines = source_lines(result.source)
        silenced = [finding for finding in findings if suppressed(finding, lines)]
        findings = [finding for finding in findings if not suppressed(finding, lines)]
        candidates = [
            finding for finding in findings
            if fixable(finding, unsafe)
            and (finding.code, module.code_for_node(finding.node)) not in rejected
            and not _rewrites_silenced(finding, silenced, lines)
        ]
        chosen = _nested_or_apart(candidates)
        if not chosen:
            result.remaining = findings
            return result
        source, kept = _apply(module, chosen)
        rejected.update((f.code, module.code_for_node(f.node)) for f in chosen if f not in kept)
        result.source = source
        result.applied.extend(kept)
    module, findings = lint_module(result.source, rules=rules)
    lines = source_lines(result.source)
    result.remaining = [finding for finding in findings if not suppressed(finding, lines)]
    result.unstable = any(fixable(finding, unsafe) for finding in result.remaining)
    return result


def _apply(module: cst.Module, chosen: List[Finding]):
    """(new source, findings applied): the fixes that keep the code valid Python.

    Every fix should; this guard makes sure a wrong one is dropped, never written. A nested fix
    whose code the outer one does not keep (it rewrote it already) is not counted as applied.
    """
    def rewrite(findings):
        replace = _Replace({id(finding.node): finding.fix.replacement for finding in findings})
        code = module.visit(replace).code
        try:  # compile, not only parse: a repeated keyword (``copy=True, copy=True``) parses
            compile(code, "<fixed>", "exec", dont_inherit=True)
        except (SyntaxError, ValueError, RecursionError):
            return None, []
        return code, [finding for finding in findings if id(finding.node) in replace.placed]

    code, applied = rewrite(chosen)
    if code is not None:
        return code, applied
    kept = [finding for finding in chosen if rewrite([finding])[0] is not None]
    return rewrite(kept) if kept else (module.code, [])


def _nested_or_apart(findings: List[Finding]) -> List[Finding]:
    """The fixes one pass can apply together: one per piece of code, each apart from or nested
    in the others (code cannot half-overlap, but two findings may point at the same node)."""
    chosen: List[Finding] = []
    for finding in sorted(findings, key=lambda f: (f.line, f.col, -f.end_line, -f.end_col, f.code)):
        span = _span(finding)
        if all(
            span[1] <= other[0] or other[1] <= span[0] or (span != other and (_within(span, other) or _within(other, span)))
            for other in map(_span, chosen)
        ):
            chosen.append(finding)
    return chosen


class _Replace(cst.CSTTransformer):
    """Swap nodes (by identity) for their replacements, from the inside out: a replacement is
    built over what the fixes nested in its node made of their code."""

    def __init__(self, replacements: Dict[int, cst.CSTNode]):
        super().__init__()
        self.replacements = replacements
        self.done: Dict[int, cst.CSTNode] = {}  # id of an original node -> what replaced it, in order
        self.placed: set = set()  # ids of the nodes whose replacement is in the result
        self._first_nested: Dict[int, int] = {}  # id of a node to replace -> len(done) on entering it

    def on_visit(self, node) -> bool:
        if id(node) in self.replacements:
            self._first_nested[id(node)] = len(self.done)
        return True

    def on_leave(self, original_node, updated_node):
        replacement = self.replacements.get(id(original_node))
        if replacement is None:
            return updated_node
        inside = list(self.done)[self._first_nested[id(original_node)]:]
        if inside:
            nested = _Nested({key: self.done[key] for key in inside})
            replacement = replacement.visit(nested)
            self.placed.difference_update(set(inside) - nested.used)  # this fix rewrote their code itself
        replacement = with_comments_of(original_node, without_repeated_copies(replacement))
        self.done[id(original_node)] = replacement
        self.placed.add(id(original_node))
        return replacement


class _Nested(cst.CSTTransformer):
    """Put the nested fixes' results into an outer replacement, where it kept their nodes."""

    def __init__(self, done: Dict[int, cst.CSTNode]):
        super().__init__()
        self.done = done
        self.used: set = set()

    def on_leave(self, original_node, updated_node):
        replaced = self.done.get(id(original_node))
        if replaced is None:
            return updated_node
        self.used.add(id(original_node))
        return replaced
