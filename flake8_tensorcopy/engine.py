"""One source file in, findings out: the pipeline flake8 and tensorcopy-fix share.

source + the stdlib ast (flake8 already built it) -> the gate: ``scan`` on that ast, matched
with what each rule subscribes to (``Rule.wants``) -> no rule wants it: done -> else the model
(``flake8_tensorcopy.model``: one abstract interpreter over that ast) and each wanting rule's
query of it -> only where a rule reports, one ``libcst.parse_module`` of the bodies some rule
wants or reads, to locate the node and write the fix -> positions. Nothing here knows a rule by
its code.

Whatever the input, ``lint_source`` and ``lint_module`` raise nothing but ``SourceError``, whose
message is one line: a source that does not parse, one too large for the limits below, one
nested deeper than LibCST's recursive walks can follow, or an internal failure
(``InternalError``, a kind of SourceError that names the exception).
"""

import ast
import re
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Dict, List, NamedTuple, Optional, Sequence, Set, Tuple

import libcst as cst
from libcst.metadata import CodePosition, CodeRange, MetadataWrapper, PositionProvider

from flake8_tensorcopy.knowledge import DEFAULT_DEVICE, DEFAULT_DEVICE_SETTERS, DEFAULT_DTYPE, DEFAULT_DTYPE_SETTERS
from flake8_tensorcopy.syntax import children_of, subtree
from flake8_tensorcopy.model import build_model
from flake8_tensorcopy.rules import ALL_RULES
from flake8_tensorcopy.scan import MAX_LINE_CHARS, descendants, scan_statements


# Limits on what reaches LibCST. Its tree takes about 550 bytes of memory per character of
# source (a 1.2 MB module: 660 MB), and more on long lines (a 400,000-character line: 560 MB,
# a 5 MB one: 8 GB), so larger input is refused before it is parsed. Every file of the
# 7,766-file real-world corpus fits with room to spare (largest 327 KB, longest line 5,148).
MAX_PARSED_CHARS = 500_000  # characters handed to LibCST (quiet bodies already left out)
# scan.MAX_LINE_CHARS (10,000): the longest line of the source


class SourceError(Exception):
    """The source cannot be analysed; the message (one line) says why."""


class InternalError(SourceError):
    """A failure of our own (a bug) while analysing a source that parses."""


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


def _check_line_length(source: str) -> None:
    """Refuse a source whose longest line is beyond ``MAX_LINE_CHARS`` (cheap: no parse)."""
    if len(source) <= MAX_LINE_CHARS:
        return
    longest = max(map(len, source.splitlines()))
    if longest > MAX_LINE_CHARS:
        raise SourceError(f"a line of {longest:,} characters is too long (the limit is {MAX_LINE_CHARS:,})")


def _check_parsed_size(source: str) -> None:
    if len(source) > MAX_PARSED_CHARS:
        raise SourceError(f"too large ({len(source):,} characters to parse; the limit is {MAX_PARSED_CHARS:,})")


def as_source_error(error: BaseException) -> SourceError:
    """The SourceError that reports ``error``: itself, deep nesting (also when LibCST's clean-up
    turned the RecursionError into a KeyError), memory, or a bug of ours, in one short line."""
    if isinstance(error, SourceError):
        return error
    cause: Optional[BaseException] = error
    while cause is not None:
        if isinstance(cause, RecursionError):
            return SourceError("too deeply nested (Python's recursion limit reached in LibCST or the analysis)")
        cause = cause.__context__
    if isinstance(error, MemoryError):
        return SourceError("out of memory")
    text = str(error).splitlines()[0][:120] if str(error) else ""
    return InternalError(f"internal error ({type(error).__name__}{': ' + text if text else ''})")


@contextmanager
def source_errors_only():
    """Let only ``SourceError`` out: deep nesting, memory or a bug becomes one line
    (``as_source_error``), never a node dump, for every face (flake8, the CLI, the server)."""
    try:
        yield
    except SourceError:
        raise
    except Exception as error:
        raise as_source_error(error) from error


def _without_quiet_bodies(source: str, tree: ast.AST, scanned, rules) -> str:
    """``source`` with the bodies of top-level defs and classes no rule wants (or reads, by
    ``Rule.reads``) replaced by ``pass`` and blank lines, and inside the classes kept those of
    quiet methods that store nothing on ``self``: LibCST then parses little more than what can
    be reported.

    The model sees every body (it runs on the ast); these are kept because a finding may be
    reported in them: a function or method the file calls that may return memory of a
    parameter, while a rule that reads "summaries" is enabled (an alias it hands back); a class
    with a method storing on ``self``, while a rule reads "stores on self" (an alias kept on
    the object, observed by a write anywhere in the file)."""
    if "\r" in source.replace("\r\n", ""):
        return source  # lone CR line ends: keep it simple, parse everything
    file = scanned.file
    lines = _LINE.findall(source)
    changed = False
    functions = (ast.FunctionDef, ast.AsyncFunctionDef)
    keep_stores = any(rule.reads_stores_on_self(file) for rule in rules)
    called = file.called if any("summaries" in rule.reads for rule in rules) else frozenset()
    callees = _wanted_by_callers_readers(tree, scanned, rules)
    for statement, features, methods in zip(tree.body, scanned.statements, scanned.methods):
        if type(statement) not in functions and type(statement) is not ast.ClassDef:
            continue
        summarised = [method for method, _, _ in methods if method.name in called and returns_from_parameters(method)]
        stores = keep_stores and any(stores_on_self for _, _, stores_on_self in methods)
        if not (_kept(features, file, rules) or stores or summarised) and features.called.isdisjoint(callees):
            if not (statement.name in called and type(statement) in functions and returns_from_parameters(statement)):
                changed = _blank_body(lines, statement) or changed
            continue
        for method, method_features, stores_on_self in methods:
            if not (stores_on_self or _kept(method_features, file, rules) or method in summarised
                    or not method_features.called.isdisjoint(callees)):
                changed = _blank_body(lines, method) or changed
    return "".join(lines) if changed else source


def _wanted_by_callers_readers(tree: ast.AST, scanned, rules) -> frozenset:
    """The names of the top-level functions, classes and methods of the file whose bodies a
    rule reading "callers" wants: a body calling one of them keeps its own (a fact about a
    parameter waits for the call)."""
    readers = [rule for rule in rules if "callers" in rule.reads and rule.wants(scanned.file)]
    if not readers:
        return frozenset()
    names = set()
    for statement, features, methods in zip(tree.body, scanned.statements, scanned.methods):
        if type(statement) in (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef) and any(
                rule.wants(features) for rule in readers):
            names.add(statement.name)
            names.update(method.name for method, method_features, _ in methods
                         if any(rule.wants(method_features) for rule in readers))
    # a function calling a wanted one hands its callers' values on to it (``wrap(**kw)``): wanted too
    functions = [(statement.name, features) for statement, features in zip(tree.body, scanned.statements)
                 if type(statement) in (ast.FunctionDef, ast.AsyncFunctionDef)]
    grown = True
    while grown:
        grown = False
        for name, features in functions:
            if name not in names and not features.called.isdisjoint(names):
                names.add(name)
                grown = True
    return frozenset(names)


def _kept(features, file_features, rules) -> bool:
    """Whether a body is parsed: some rule may report in it, or reads it."""
    return any(rule.wants(features) or rule.reads_body(file_features, features) for rule in rules)


def returns_from_parameters(function: ast.AST) -> bool:
    """Whether a ``return`` (or a ``yield``) of ``function`` may hand back memory of one of its
    parameters (``return x``, ``return x.t()``, ``return self.buf[:n]``, ``return
    np.asarray(a)``, ``yield torch.from_numpy(a[i:j])``), or a module name it binds under
    ``global`` may hold it (``global BEST; BEST = v``): what its summary would say at call sites."""
    arguments = function.args
    names = {arg.arg for arg in arguments.posonlyargs + arguments.args}
    nodes = list(descendants(function))
    declared = {name for node in nodes if type(node) is ast.Global for name in node.names}
    for node in nodes:
        if type(node) in _HANDING_BACK and node.value is not None and _memory_roots(node.value) & names:
            return True
        if declared and type(node) is ast.Assign and any(
                type(target) is ast.Name and target.id in declared for target in node.targets) \
                and _memory_roots(node.value) & names:
            return True
    return False


_HANDING_BACK = (ast.Return, ast.Yield, ast.YieldFrom)


def _memory_roots(node: ast.AST) -> set:
    """Names whose memory an expression may be: followed through attributes, indexing,
    method calls (the receiver), calls on one argument (the argument), tuple, list and dict
    items, both branches of ``a if c else b`` and what a comprehension iterates."""
    if type(node) is ast.Name:
        return {node.id}
    if type(node) in (ast.Attribute, ast.Subscript):
        return _memory_roots(node.value)
    if type(node) is ast.Call:
        if type(node.func) is ast.Attribute:
            return _memory_roots(node.func.value) | (_memory_roots(node.args[0]) if node.args else set())
        return _memory_roots(node.args[0]) if node.args else set()
    if type(node) in (ast.Tuple, ast.List):
        return set().union(*(_memory_roots(element) for element in node.elts))
    if type(node) is ast.Dict:
        return set().union(*(_memory_roots(value) for value in node.values))
    if type(node) is ast.IfExp:
        return _memory_roots(node.body) | _memory_roots(node.orelse)
    if type(node) in (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp):  # items of what it iterates
        return set().union(*(_memory_roots(generator.iter) for generator in node.generators))
    return set()


def _blank_body(lines: List[str], definition: ast.AST) -> bool:
    """Replace a def's or class's body with ``pass`` and blank lines; False when it cannot."""
    first = definition.body[0]
    decorators = getattr(first, "decorator_list", ())
    start, column = min([(first.lineno, first.col_offset)] + [(d.lineno, d.col_offset - 1) for d in decorators])
    if start <= definition.lineno or definition.end_lineno > len(lines):
        return False  # ``def f(): ...`` on one line
    opening = lines[start - 1]
    indent = opening[: len(opening) - len(opening.lstrip())]
    if not indent or len(indent) != column:
        return False  # the body starts on the header's last line: ``) -> T: ...``
    for number in range(start, definition.end_lineno + 1):
        line = lines[number - 1]
        ending = line[len(line.rstrip("\r\n")):]
        lines[number - 1] = (indent + "pass" + ending) if number == start else ending
    return True


_LINE = re.compile(r"[^\n]*\n|[^\n]+$")


def positions_of(module: cst.Module, tree: ast.Module, nodes: List[cst.CSTNode],
                 within: Sequence[cst.CSTNode] = ()) -> Dict[cst.CSTNode, CodeRange]:
    """Where ``nodes`` are (all inside the last of the statements ``within``, where it is given,
    each holding the next from a top-level one down: only that last one is walked, not the
    module up to it).

    LibCST's PositionProvider generates the code of all it resolves (over a whole module,
    about twice its parse), so it runs on a pruned copy of each top-level statement holding a
    wanted node: in each block on the way down only the statements holding one are kept, down
    to the innermost statement that holds them all outside its body (kept whole, a "leaf").
    Columns stay right, as the headers and indentation around a leaf stay; each leaf's line
    comes from the stdlib ast of the same source."""
    wanted = {id(node) for node in nodes}
    pairs = _paired(module.body, tree.body)
    if pairs is None:  # the two trees disagree: resolve the whole module
        return dict(MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider))
    counts = _wanted_below(list(within[-1:]) or module.body, wanted)
    for statement in within[:-1]:  # each holds all the last one does
        counts[id(statement)] = counts.get(id(within[-1]), 0)
    found: Dict[cst.CSTNode, CodeRange] = {}
    for statement, first in pairs:
        if id(statement) not in counts:
            continue
        leaves: List[tuple] = []
        pruned = _pruned(statement, first, counts, leaves)
        alone = cst.Module(body=[pruned], default_newline=module.default_newline,
                           default_indent=module.default_indent)
        resolved = MetadataWrapper(alone, unsafe_skip_copy=True).resolve(PositionProvider)
        # a decorated leaf's span starts at its first decorator (its position starts at ``def``/``class``,
        # the ast's line too, so one offset holds for both)
        spans = [(min([resolved[leaf].start.line] + [resolved[decorator].start.line
                                                      for decorator in getattr(leaf, "decorators", ())]),
                  resolved[leaf].end.line, line - resolved[leaf].start.line) for leaf, line in leaves]
        for node, where in resolved.items():
            if id(node) not in wanted:
                continue
            offset = next((offset for start, end, offset in spans if start <= where.start.line <= end), None)
            if offset is not None:
                found[node] = CodeRange(
                    CodePosition(where.start.line + offset, where.start.column),
                    CodePosition(where.end.line + offset, where.end.column),
                )
    if len(found) < len(wanted):  # a comment or blank line before a statement, the module's header
        whole = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
        found.update((node, whole[node]) for node in nodes if node not in found)
    return found


def _paired(statements: Sequence[cst.CSTNode], nodes: List[ast.stmt]) -> Optional[List[tuple]]:
    """Each LibCST statement of a block with the first stdlib ast statement it holds (a line
    ``a = 1; b = 2`` is one LibCST statement and two ast ones), or None if they disagree."""
    pairs = []
    index = 0
    for statement in statements:
        if index >= len(nodes):
            return None
        pairs.append((statement, nodes[index]))
        index += len(statement.body) if type(statement) is cst.SimpleStatementLine else 1
    return pairs if index == len(nodes) else None


_STATEMENTS = (cst.SimpleStatementLine, cst.BaseCompoundStatement)
_CLOSE = object()  # on the walk's stack: the statement opened last is done


def _wanted_below(statements: Sequence[cst.CSTNode], wanted: Set[int]) -> Dict[int, int]:
    """id(statement) -> how many wanted nodes it holds, for the statements holding any (one
    walk of ``statements``, no recursion, that stops at the last wanted node)."""
    counts: Dict[int, int] = {}
    open_statements: List[cst.CSTNode] = []
    stack: list = list(reversed(statements))
    missing = len(wanted)
    while stack and missing:
        node = stack.pop()
        if node is _CLOSE:
            open_statements.pop()
            continue
        if isinstance(node, _STATEMENTS):
            open_statements.append(node)
            stack.append(_CLOSE)
        if id(node) in wanted:
            missing -= 1
            for statement in open_statements:
                counts[id(statement)] = counts.get(id(statement), 0) + 1
        stack.extend(reversed(children_of(node)))
    return counts


def _pruned(statement: cst.CSTNode, node: ast.stmt, counts: Dict[int, int], leaves: List[tuple]) -> cst.CSTNode:
    """``statement`` with, in its body, only the statements holding wanted nodes (pruned in
    turn), when all it holds lies in that body; else itself, a leaf: (leaf, its first line)
    is added to ``leaves``."""
    body = getattr(statement, "body", None)
    if type(body) is cst.IndentedBlock and type(statement) is not cst.SimpleStatementLine:
        inner = [(child, first) for child, first in _paired(body.body, getattr(node, "body", [])) or ()
                 if id(child) in counts]
        if inner and sum(counts[id(child)] for child, _ in inner) == counts[id(statement)]:
            kept = [_pruned(child, first, counts, leaves) for child, first in inner]
            return statement.with_changes(body=body.with_changes(body=kept))
    leaves.append((statement, node.lineno))
    return statement


class Report(NamedTuple):
    """A rule's finding on one LibCST node, before positions are computed."""

    code: str
    node: cst.CSTNode
    message: str
    fix: Any = None


class ModelSite:
    """What a rule that queries the model (``Rule.query``) reports through: the LibCST node of
    an event's ast node (the node its fix rewrites), that node's source, and ``report``."""

    def __init__(self, parse_module, tree: ast.Module, source: str):
        self._parse_module = parse_module
        self._module: Optional[cst.Module] = None
        self.tree = tree
        # the lines the ast counts: only CR, LF and CRLF end one (``str.splitlines`` also splits at
        # a form feed, which would shift every line after it)
        self.lines = source.replace("\r\n", "\n").replace("\r", "\n").split("\n")
        self.reports: List[Report] = []
        self._statements: Optional[dict] = None
        self._resolved: Dict[tuple, dict] = {}
        self.positions: Dict[cst.CSTNode, CodeRange] = {}  # of the nodes ``node_of`` resolved: reports' positions

    @property
    def parsed(self) -> bool:
        return self._module is not None

    @property
    def module(self) -> cst.Module:
        """The LibCST module, parsed the first time a rule needs a node (most files that pass
        the gate hold no finding and are never parsed by LibCST)."""
        if self._module is None:
            self._module = self._parse_module()
        return self._module

    def node_of(self, node: ast.AST) -> Optional[cst.CSTNode]:
        """The LibCST node spanning what the ast ``node`` spans (None: not parsed, or none of
        its type there). ast columns are UTF-8 byte offsets; LibCST's are characters."""
        name = type(node).__name__
        wanted = getattr(cst, _CST_NAMES.get(name, name), None)
        path = self._statements_holding(node) if wanted is not None else []
        if not path:
            return None
        start = (node.lineno, self._column(node.lineno, node.col_offset))
        end = (node.end_lineno, self._column(node.end_lineno, node.end_col_offset))
        return self._spans(path, wanted).get((start, end))

    def _statements_holding(self, node: ast.AST) -> List[cst.CSTNode]:
        """The LibCST statements holding ``node``, from the top-level one down to the innermost
        one whose lines hold it outside any nested body: positions are then resolved over a few
        lines, not over a whole class, nor a walk of the module up to it."""
        statements, nodes = self.module.body, self.tree.body
        path: List[cst.CSTNode] = []
        while True:
            found = next(((statement, first) for statement, first, last in _spanned(statements, nodes)
                          if first.lineno <= node.lineno and last.end_lineno >= node.end_lineno), None)
            if found is None:
                return path
            holder, first = found
            path.append(holder)
            body = getattr(holder, "body", None)
            inner = getattr(first, "body", None)
            if type(holder) is cst.SimpleStatementLine or type(body) is not cst.IndentedBlock or type(inner) is not list:
                return path
            if not inner or not (inner[0].lineno <= node.lineno and node.end_lineno <= inner[-1].end_lineno):
                return path  # in the header (a decorator, a condition) or across the body
            statements, nodes = body.body, inner

    def _spans(self, path: List[cst.CSTNode], wanted: type) -> dict:
        """``{(start, end): node}`` of the nodes of one type in the last statement of ``path``
        (the statements holding it from the top-level one down), resolved once (rules ask for
        many nodes of one statement)."""
        holder = path[-1]
        key = (id(holder), wanted)
        found = self._resolved.get(key)
        if found is None:
            candidates = [current for current in subtree(holder) if type(current) is wanted]
            resolved = positions_of(self.module, self.tree, candidates, path)
            self.positions.update(resolved)
            found = self._resolved[key] = {
                ((where.start.line, where.start.column), (where.end.line, where.end.column)): candidate
                for candidate, where in resolved.items()}
        return found

    def _column(self, line: int, offset: int) -> int:
        text = self.lines[line - 1] if line <= len(self.lines) else ""
        return offset if text.isascii() else len(text.encode("utf-8")[:offset].decode("utf-8", "replace"))

    def source_of(self, node: cst.CSTNode) -> str:
        return self.module.code_for_node(node)

    def statement_of(self, node: ast.expr) -> Optional[ast.Expr]:
        """The expression statement that is ``node`` alone (``x.mul_(2)`` on its own line), if any."""
        if self._statements is None:
            self._statements = {id(statement.value): statement for statement in ast.walk(self.tree)
                                if type(statement) is ast.Expr}
        return self._statements.get(id(node))

    def report(self, code: str, node: cst.CSTNode, message: str, fix=None) -> None:
        self.reports.append(Report(code, node, message, fix))


# ast node types whose LibCST counterpart has another name
_CST_NAMES = {"Compare": "Comparison", "BinOp": "BinaryOperation", "UnaryOp": "UnaryOperation",
              "BoolOp": "BooleanOperation"}


def _spanned(statements: Sequence[cst.CSTNode], nodes: List[ast.stmt]) -> List[tuple]:
    """(LibCST statement, the first and the last ast statement it holds) for one block."""
    spans = []
    index = 0
    for statement, first in _paired(statements, nodes) or ():
        index += len(statement.body) if type(statement) is cst.SimpleStatementLine else 1
        spans.append((statement, first, nodes[index - 1]))
    return spans


def _without_yielded(reports: list, rules) -> list:
    """``reports`` without those that step aside for another on the same site: an opinionated
    one (TEN9xx: a style) where a hazard finding covers its expression or lies
    inside it, and a rule's where a code it ``yields_to`` does: one site never reads as both."""
    yielding = {rule.code: rule for rule in rules if rule.opinionated or rule.yields_to}
    if not any(report.code in yielding for report in reports):
        return reports
    opinionated = {rule.code for rule in rules if rule.opinionated}
    kept = []
    for report in reports:
        rule = yielding.get(report.code)
        if rule is not None:
            others = [other.node for other in reports if other.code in rule.yields_to or (
                rule.opinionated and other.code not in opinionated)]
            if others and _overlaps(report.node, others):
                continue
        kept.append(report)
    return kept


def _overlaps(node: cst.CSTNode, others: list) -> bool:
    """Whether ``node`` lies inside one of ``others`` or holds one."""
    return _holds_any(node, {id(other) for other in others}) or any(
        _holds_any(other, {id(node)}) for other in others)


def _holds_any(node: cst.CSTNode, wanted: Set[int]) -> bool:
    return any(id(current) in wanted for current in subtree(node))


def lint_source(source: str, tree: Optional[ast.AST] = None, rules=ALL_RULES, scanned=None,
                modules=None) -> List[Finding]:
    """All findings of ``rules`` in ``source``, sorted by position (only what can be reported
    is parsed by LibCST).

    ``tree`` is the stdlib ast of ``source`` when the caller has it (flake8 does); without it
    the source is parsed with ``ast`` first; ``scanned`` is ``scan_statements(tree)`` if the
    caller has it too. ``modules`` (an ``incremental.ModuleCache``, which the language server
    keeps per document) parses with LibCST only what changed since its last parse. Raises
    SourceError (and nothing else) when it cannot be analysed.
    """
    return lint_module(source, tree, rules, scanned, whole=False, modules=modules)[1]


def lint_module(
    source: str, tree: Optional[ast.AST] = None, rules=ALL_RULES, scanned=None, whole: bool = True, modules=None
) -> Tuple[Optional[cst.Module], List[Finding]]:
    """The LibCST module (None when nothing was found and nothing had to be parsed) and the
    findings, whose nodes and fixes belong to that module: what the fixer needs to rewrite it.

    With ``whole=False`` (linting only), top-level functions and classes no rule could report
    on are left out of the parse: their bodies become blank lines, so positions stay the same.
    """
    with source_errors_only():
        return _lint_module(source, tree, rules, scanned, whole, modules)


def _lint_module(source, tree, rules, scanned, whole, modules):
    _check_line_length(source)
    if tree is None:
        try:
            tree = ast.parse(source)
        except (SyntaxError, ValueError) as error:
            raise SourceError(str(error)) from error
    scanned = scanned if scanned is not None else scan_statements(tree)
    features = scanned.file
    # every rule requires the "tensors" trait, which the flake8 face checks before importing this
    # module: both faces give one answer for one file
    if not any(rule.wants(features) for rule in rules):
        return None, []
    querying = [rule for rule in rules if rule.wants(features)]
    parsed = source if whole else _without_quiet_bodies(source, tree, scanned, rules)

    def parse_module() -> cst.Module:
        _check_parsed_size(parsed)
        return parse(parsed) if modules is None else modules.parse(parsed, tree)

    site = ModelSite(parse_module, tree, parsed)
    # one model per file, from the ast of the whole source (quiet bodies included)
    model = build_model(tree, "" if features.called & DEFAULT_DTYPE_SETTERS else DEFAULT_DTYPE,
                        "" if features.called & DEFAULT_DEVICE_SETTERS else DEFAULT_DEVICE)
    for rule in querying:
        rule.query(model, site)
    reports = _without_yielded(site.reports, rules)
    if not reports:
        return (site.module if site.parsed else None), []
    module = site.module
    unknown = [report.node for report in reports if report.node not in site.positions]
    positions = {**site.positions, **(positions_of(module, tree, unknown) if unknown else {})}
    findings = []
    for report in reports:
        where = positions[report.node]
        findings.append(Finding(report.code, where.start.line, where.start.column, report.message, where.end.line,
                                where.end.column, report.node, report.fix))
    findings.sort(key=lambda finding: (finding.line, finding.col, finding.code))
    return module, findings
