"""Fixing one source string: what ``tensorcopy-fix`` does to a file, without touching disk.

Fixes are LibCST node replacements carried by the findings. One pass applies every fix that
does not overlap another; fixes that overlap (``torch.tensor(w.clone().detach())`` holds two)
are applied in later passes, re-linting in between, until nothing is left to fix.
"""

import ast
import re
from dataclasses import dataclass, field
from typing import Dict, List, Sequence

import libcst as cst

from flake8_tensorcopy.engine import Finding, lint_module
from flake8_tensorcopy.fixes import with_comments_of
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


def fix_source(source: str, rules=ALL_RULES, unsafe: bool = False) -> FixResult:
    """Apply the fixes of ``rules`` to ``source`` until stable. Raises engine.SourceError."""
    result = FixResult(source)
    rejected = set()  # (code, node source) of fixes that would not have made valid code
    for _ in range(MAX_PASSES):
        module, findings = lint_module(result.source, rules=rules)
        lines = source_lines(result.source)
        findings = [finding for finding in findings if not suppressed(finding, lines)]
        candidates = [
            finding for finding in findings
            if fixable(finding, unsafe) and (finding.code, module.code_for_node(finding.node)) not in rejected
        ]
        chosen = _non_overlapping(candidates)
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

    Every fix should; this guard makes sure a wrong one is dropped, never written.
    """
    def rewrite(findings):
        replacements: Dict[int, cst.CSTNode] = {
            id(finding.node): with_comments_of(finding.node, finding.fix.replacement) for finding in findings
        }
        code = module.visit(_Replace(replacements)).code
        try:
            ast.parse(code)
        except (SyntaxError, ValueError, RecursionError):
            return None
        return code

    code = rewrite(chosen)
    if code is not None:
        return code, chosen
    kept = [finding for finding in chosen if rewrite([finding]) is not None]
    return (rewrite(kept) if kept else module.code), kept


def _non_overlapping(findings: List[Finding]) -> List[Finding]:
    """The fixes one pass can apply together: no two touch the same code."""
    chosen: List[Finding] = []
    for finding in sorted(findings, key=lambda f: (f.line, f.col, -f.end_line, -f.end_col, f.code)):
        start, end = (finding.line, finding.col), (finding.end_line, finding.end_col)
        if all(end <= (other.line, other.col) or (other.end_line, other.end_col) <= start for other in chosen):
            chosen.append(finding)
    return chosen


class _Replace(cst.CSTTransformer):
    """Swap nodes (by identity) for their replacements."""

    def __init__(self, replacements: Dict[int, cst.CSTNode]):
        super().__init__()
        self.replacements = replacements

    def on_leave(self, original_node, updated_node):
        return self.replacements.get(id(original_node), updated_node)
