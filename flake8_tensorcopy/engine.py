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
from flake8_tensorcopy.analysis.aliases import NUMPY_INPLACE_FUNCTIONS, NUMPY_INPLACE_METHODS
from flake8_tensorcopy.data import INPLACE_METHODS
from flake8_tensorcopy.rules import ALL_RULES

_ARRAY_LIBRARIES = frozenset({"torch", "numpy"})

# Names of calls that write something in place (see analysis.aliases for the full story).
WRITE_CALLS = (
    INPLACE_METHODS
    | NUMPY_INPLACE_METHODS
    | {name.rsplit(".", 1)[-1] for name in NUMPY_INPLACE_FUNCTIONS}
    | {"step", "load_state_dict"}
)


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


class Features:
    """What a cheap walk of the stdlib ast saw: enough to know which rules may report."""

    __slots__ = ("called", "attributes", "writes", "may_hold_tensors", "identity_tests")

    def __init__(self, called: Set[str], attributes: Set[str], writes: bool, may_hold_tensors: bool,
                 identity_tests: bool):
        self.called = called  # last names of every call, import aliases resolved
        self.attributes = attributes  # every attribute name read or written
        self.writes = writes  # some in-place write: ``x.add_()``, ``a[i] =``, ``a += ``, ...
        self.may_hold_tensors = may_hold_tensors  # imports torch or numpy, or calls .detach()
        self.identity_tests = identity_tests  # some ``a is b`` / ``a is not b``


def scan(tree: ast.AST) -> Features:
    """One walk of the ast flake8 already built (about a tenth of a LibCST parse).

    Most files of a project have nothing any rule could flag; they never reach LibCST.
    """
    called = set()
    attributes = set()
    identity_tests = False
    renamed = {}
    writes = False
    imports_arrays = False
    for node in ast.walk(tree):
        node_type = type(node)
        if node_type is ast.Attribute:
            attributes.add(node.attr)
        elif node_type is ast.Call:
            func = node.func
            if type(func) is ast.Attribute:
                called.add(func.attr)
            elif type(func) is ast.Name:
                called.add(func.id)
            if not writes and node.keywords:
                writes = any(keyword.arg in ("out", "inplace") for keyword in node.keywords)
        elif node_type is ast.Compare and not identity_tests:
            # ``a is b`` between two values (``x is None`` and friends cannot be about tensors)
            identity_tests = any(type(op) in (ast.Is, ast.IsNot) for op in node.ops) and not any(
                type(operand) is ast.Constant for operand in [node.left, *node.comparators]
            )
        elif node_type is ast.AugAssign:
            writes = True
        elif node_type is ast.Assign:
            if not writes:
                writes = any(type(target) is ast.Subscript for target in node.targets)
        elif node_type is ast.ImportFrom:
            module = (node.module or "").split(".", 1)[0]
            imports_arrays = imports_arrays or (module in _ARRAY_LIBRARIES and not node.level)
            for alias in node.names:
                if alias.asname:
                    renamed[alias.asname] = alias.name
        elif node_type is ast.Import:
            imports_arrays = imports_arrays or any(
                alias.name.split(".", 1)[0] in _ARRAY_LIBRARIES for alias in node.names
            )
    called.update(renamed[name] for name in called.intersection(renamed))
    if not writes:
        writes = not called.isdisjoint(WRITE_CALLS) or any("train" in name or "fit" in name for name in called)
    return Features(called, attributes, writes, imports_arrays or "detach" in called, identity_tests)


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


def lint_source(source: str, tree: Optional[ast.AST] = None, rules=ALL_RULES) -> List[Finding]:
    """All findings of ``rules`` in ``source``, sorted by position.

    ``tree`` is the stdlib ast of ``source`` when the caller has it (flake8 does); without it
    the source is parsed with ``ast`` first. Raises SourceError when the source does not parse.
    """
    return lint_module(source, tree, rules)[1]


def lint_module(
    source: str, tree: Optional[ast.AST] = None, rules=ALL_RULES
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
