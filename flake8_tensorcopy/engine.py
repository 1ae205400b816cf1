"""One source file in, findings out: the pipeline flake8 and tensorcopy-fix share.

source + the stdlib ast (flake8 already built it) -> candidate scan on that ast -> no
candidate: done -> else one ``libcst.parse_module`` -> one shared walk where every rule runs
-> positions, computed only when something was found.
"""

import ast
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Set, Tuple

import libcst as cst
from libcst.metadata import CodePosition, CodeRange, MetadataWrapper, PositionProvider

from flake8_tensorcopy.analysis.walker import Analysis
from flake8_tensorcopy.rules import ALL_RULES
from flake8_tensorcopy.scan import Features, scan


class SourceError(Exception):
    """The source cannot be analysed (it does not parse); the message says where."""


@dataclass(frozen=True)
class Finding:
    code: str
    line: int  # 1-based
    col: int  # 0-based, as flake8 expects
    message: str
    end_line: int = 0
    end_col: int = 0
    node: Any = field(default=None, compare=False, repr=False)
    fix: Any = field(default=None, compare=False, repr=False)


def parse(source: str) -> cst.Module:
    try:
        return cst.parse_module(source)
    except cst.ParserSyntaxError as error:
        raise SourceError(f"line {error.raw_line}, column {error.raw_column}: {error.message}") from error
    except RecursionError as error:
        raise SourceError("too deeply nested to parse") from error


def positions_of(module: cst.Module, nodes: List[cst.CSTNode]) -> Dict[cst.CSTNode, CodeRange]:
    """Where ``nodes`` are, resolving positions only inside the top-level statements that hold
    them: LibCST's PositionProvider over a whole module costs about twice its parse."""
    wanted = {id(node) for node in nodes}
    found: Dict[cst.CSTNode, CodeRange] = {}
    line = sum(module.code_for_node(empty_line).count("\n") for empty_line in module.header)
    for statement in module.body:
        if _holds_any(statement, wanted):
            alone = cst.Module(body=[statement], default_newline=module.default_newline,
                               default_indent=module.default_indent)
            for node, where in MetadataWrapper(alone, unsafe_skip_copy=True).resolve(PositionProvider).items():
                if id(node) in wanted:
                    found[node] = CodeRange(
                        CodePosition(where.start.line + line, where.start.column),
                        CodePosition(where.end.line + line, where.end.column),
                    )
        line += module.code_for_node(statement).count("\n")
    return found


def _holds_any(node: cst.CSTNode, wanted: Set[int]) -> bool:
    stack = [node]
    while stack:
        current = stack.pop()
        if id(current) in wanted:
            return True
        stack.extend(current.children)
    return False


def lint_source(
    source: str, tree: Optional[ast.AST] = None, rules=ALL_RULES, features: Optional[Features] = None
) -> List[Finding]:
    """All findings of ``rules`` in ``source``, sorted by position.

    ``tree`` is the stdlib ast of ``source`` when the caller has it (flake8 does); without it
    the source is parsed with ``ast`` first. Raises SourceError when the source does not parse.
    """
    return lint_module(source, tree, rules, features)[1]


def lint_module(
    source: str, tree: Optional[ast.AST] = None, rules=ALL_RULES, features: Optional[Features] = None
) -> Tuple[Optional[cst.Module], List[Finding]]:
    """The LibCST module (None when no rule could apply) and the findings, whose nodes and
    fixes belong to that module: what the fixer needs to rewrite it."""
    if tree is None:
        try:
            tree = ast.parse(source)
        except (SyntaxError, ValueError) as error:
            raise SourceError(str(error)) from error
        except RecursionError as error:
            raise SourceError("too deeply nested to parse") from error
    if features is None:
        features = scan(tree)
    if not any(rule.wants(features) for rule in rules):
        return None, []
    module = parse(source)
    try:
        reports = Analysis(module, rules).run()
    except RecursionError as error:
        raise SourceError("too deeply nested to analyse") from error
    if not reports:
        return module, []
    positions = positions_of(module, [report.node for report in reports] +
                             [node for report in reports for node in report.refs.values()])
    findings = []
    for report in reports:
        where = positions[report.node]
        message = report.message
        lines = {name: positions[node].start.line for name, node in report.refs.items()}
        for name, line in lines.items():
            message = message.replace("{" + name + "}", str(line))
        if "read" in lines and lines["read"] < lines["write"]:
            read = f"read on line {lines['read']}"
            message = message.replace(read, read + " in a later iteration")
        findings.append(
            Finding(report.code, where.start.line, where.start.column, message, where.end.line, where.end.column,
                    report.node, report.fix)
        )
    findings.sort(key=lambda finding: (finding.line, finding.col, finding.code))
    return module, findings
