"""One source file in, findings out: the pipeline flake8 and tensorcopy-fix share.

source + the stdlib ast (flake8 already built it) -> candidate scan on that ast -> no
candidate: done -> else one ``libcst.parse_module`` -> one shared walk where every rule runs
-> positions, computed only when something was found.
"""

import ast
from dataclasses import dataclass, field
from typing import Any, Iterable, List, Optional

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from flake8_tensorcopy.analysis.walker import Analysis
from flake8_tensorcopy.rules import ALL_RULES, CANDIDATE_CALLS


class SourceError(Exception):
    """The source cannot be analysed (it does not parse); the message says where."""


@dataclass(frozen=True)
class Finding:
    code: str
    line: int  # 1-based
    col: int  # 0-based, as flake8 expects
    message: str
    node: Any = field(default=None, compare=False, repr=False)
    fix: Any = field(default=None, compare=False, repr=False)


def has_candidate(tree: ast.AST, names: Iterable[str] = CANDIDATE_CALLS) -> bool:
    """Whether the module calls anything a rule inspects (by name, import aliases included).

    A walk of the stdlib ast costs about a tenth of a LibCST parse, and most files of a
    project have no candidate, so this is what keeps flake8 runs fast.
    """
    wanted = set(names)
    called = set()
    for node in ast.walk(tree):
        node_type = type(node)
        if node_type is ast.Call:
            func = node.func
            if type(func) is ast.Attribute:
                called.add(func.attr)
            elif type(func) is ast.Name:
                called.add(func.id)
        elif node_type is ast.ImportFrom:
            for alias in node.names:
                if alias.asname and alias.name in wanted:
                    wanted.add(alias.asname)
    return not called.isdisjoint(wanted)


def parse(source: str) -> cst.Module:
    try:
        return cst.parse_module(source)
    except cst.ParserSyntaxError as error:
        raise SourceError(f"line {error.raw_line}, column {error.raw_column}: {error.message}") from error


def lint_source(source: str, tree: Optional[ast.AST] = None, rules=ALL_RULES) -> List[Finding]:
    """All findings of ``rules`` in ``source``, sorted by position.

    ``tree`` is the stdlib ast of ``source`` when the caller has it (flake8 does); without it
    the source is parsed with ``ast`` first. Raises SourceError when the source does not parse.
    """
    if tree is None:
        try:
            tree = ast.parse(source)
        except (SyntaxError, ValueError) as error:
            raise SourceError(str(error)) from error
    if not has_candidate(tree, {name for rule in rules for name in rule.calls}):
        return []
    module = parse(source)
    reports = Analysis(module, rules).run()
    if not reports:
        return []
    positions = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    findings = []
    for report in reports:
        start = positions[report.node].start
        findings.append(Finding(report.code, start.line, start.column, report.message, report.node, report.fix))
    findings.sort(key=lambda finding: (finding.line, finding.col, finding.code))
    return findings
