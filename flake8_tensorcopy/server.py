"""``tensorcopy-lsp``: the language server editors start once and keep (stdio, on pygls).

An editor that runs flake8 per save pays a fresh process and LibCST's import each time; this
server pays them once. Documents are synchronised incrementally (the client sends the ranges
it changed, in its position units). It publishes diagnostics on open, on save (when the text or
the configuration changed since the last lint) and, debounced, on change; offers a quick fix
per finding that has one (unsafe ones labelled) and a source action fixing every safe finding;
reads the ``[tool.tensorcopy]`` nearest to each document. A buffer that does not parse
publishes nothing, so the editor keeps showing the last diagnostics (its Python support
reports the syntax error), and gets no edit: an edit is only ever computed from a source that
parsed, so it never empties a buffer.
Needs the ``server`` extra (pygls); nothing here imports or runs the code it reads.
"""

import argparse
import ast
import asyncio
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Tuple

import libcst as cst

from flake8_tensorcopy import __version__, install_hint
from flake8_tensorcopy.knowledge.conventions import configure as configure_conventions
from flake8_tensorcopy.cli import Options, options_for
from flake8_tensorcopy.config import find_pyproject, load_config
from flake8_tensorcopy.engine import Finding, SourceError, lint_source
from flake8_tensorcopy.fixer import fix_source, source_lines, suppressed
from flake8_tensorcopy.incremental import ModuleCache
from flake8_tensorcopy.output import finding_row, rule_url

NAME = "tensorcopy"
DEBOUNCE_SECONDS = 0.25  # after the last keystroke, before linting a changed buffer
FIX_ALL_KIND = "source.fixAll.tensorcopy"
CANNOT_ANALYSE = "flake8-tensorcopy could not analyse this file: {}"
_LINE_WITH_END = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$")
_LINE_BREAK = re.compile(r"\r\n|\r|\n")  # LSP's line ends (not a form feed or U+2028, as str.splitlines)


@dataclass
class Linted:
    """One version of a document as last linted: its findings and their rows (1-based columns;
    a fix's edits are built when a code action asks, by ``fix_edits``), or the one problem
    that stopped linting."""

    version: Optional[int]
    source: str
    directory: Path  # where its configuration is looked for
    rows: List[dict] = field(default_factory=list)
    findings: List[Finding] = field(default_factory=list)  # one per row
    problem: Optional[str] = None  # a configuration error, or why the source cannot be analysed
    options: Optional[Options] = None
    unparsed: bool = False  # the buffer does not parse (mid-edit): nothing to publish

    def fix_edits(self, index: int) -> List[dict]:
        """The edits of the fix of row ``index``, as ``tensorcopy-fix --format json`` gives them."""
        return finding_row(self.findings[index], self.options.unsafe, source_lines(self.source))["fix"]["edits"]


@dataclass
class OpenDocument:
    """An open document as the client's changes made it (this copy, not pygls's, which splits
    lines at form feeds and U+2028 where LSP does not)."""

    version: Optional[int]
    source: str
    directory: Path  # where its configuration is looked for


class Configurations:
    """Each directory's options, read again only when its nearest pyproject.toml changes (its
    mtime or size) or another one becomes the nearest: reading and checking it costs a lint
    about 1 ms per change (a 50-line pyproject.toml), the stat calls a few microseconds."""

    def __init__(self) -> None:
        self._known: Dict[Path, tuple] = {}  # directory -> (the pyproject's path and stat, Config, Options)

    def options(self, directory: Path) -> Options:
        """The options of ``directory``'s ``[tool.tensorcopy]``, its naming conventions put in
        force (they are global: every lint and fix asks again); ValueError when it is wrong."""
        path = find_pyproject(directory.resolve())
        try:
            stat = None if path is None else path.stat()
        except OSError:
            stat = None
        signature = (path, None if stat is None else (stat.st_mtime_ns, stat.st_size))
        known = self._known.get(directory)
        if known is not None and known[0] == signature:
            configure_conventions(known[1].conventions)
            return known[2]
        config = load_config(directory)
        options = options_for(config, "report")
        self._known[directory] = (signature, config, options)
        return options


def lint_text(source: str, directory: Optional[Path], version: Optional[int] = None,
              modules: Optional[ModuleCache] = None, configurations: Optional[Configurations] = None) -> Linted:
    """Lint a buffer with the configuration of ``directory`` (the working directory's when it
    is None); ``modules`` keeps the document's LibCST statements between its versions,
    ``configurations`` the server's options. Never raises."""
    linted = Linted(version, source, directory or Path.cwd())
    try:
        linted.options = (configurations or Configurations()).options(linted.directory)
    except ValueError as error:  # ConfigError is one
        linted.problem = str(error)
        return linted
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        linted.unparsed = True  # mid-edit: no diagnostics, no edits
        return linted
    try:
        lines = source_lines(source)
        findings = lint_source(source, tree, linted.options.rules, modules=modules)
        linted.findings = [finding for finding in findings if not suppressed(finding, lines)]
        linted.rows = [finding_row(finding, linted.options.unsafe) for finding in linted.findings]
    except SourceError as error:
        if isinstance(error.__cause__, cst.ParserSyntaxError):  # Python parses it, LibCST not (yet)
            linted.unparsed = True
        else:
            linted.problem = CANNOT_ANALYSE.format(error)
    return linted


def edit_for_fixed(source: str, fixed: str) -> Optional[tuple]:
    """((start line, start column), (end line, end column), new text): the smallest run of
    whole lines to replace, 0-based; None when nothing changes or the result would be empty."""
    if fixed == source or not fixed.strip():
        return None
    old, new = _LINE_WITH_END.findall(source), _LINE_WITH_END.findall(fixed)
    start = 0
    while start < min(len(old), len(new)) and old[start] == new[start]:
        start += 1
    kept_end = 0
    while kept_end < min(len(old), len(new)) - start and old[-1 - kept_end] == new[-1 - kept_end]:
        kept_end += 1
    end_line = len(old) - kept_end
    if end_line == len(old) and old and old[-1] == old[-1].rstrip("\r\n"):  # ends inside the last line
        end = (end_line - 1, len(old[-1]))
    else:
        end = (end_line, 0)
    return (start, 0), end, "".join(new[start:len(new) - kept_end])


def apply_change(source: str, start: Tuple[int, int], end: Tuple[int, int], text: str, units: str = "utf-16") -> str:
    """``source`` with the range from ``start`` to ``end`` (0-based line and character, the
    characters counted in the client's ``units``: ``utf-16``, ``utf-8`` or ``utf-32``) replaced
    by ``text``, as LSP's incremental sync means it: lines end at CR, LF or CRLF only, a
    position past a line's end is its end, past the last line the text's end."""
    return source[:_offset(source, start, units)] + text + source[_offset(source, end, units):]


def _offset(source: str, position: Tuple[int, int], units: str) -> int:
    line, character = position
    starts = [0, *(match.end() for match in _LINE_BREAK.finditer(source))]
    if line >= len(starts):
        return len(source)
    begin = starts[line]
    line_break = _LINE_BREAK.search(source, begin)
    finish = line_break.start() if line_break else len(source)
    counted = 0
    for offset in range(begin, finish):
        if counted >= character:
            return offset
        counted += _width(source[offset], units)
    return finish


def _width(character: str, units: str) -> int:
    """How many code units of the client's encoding ``character`` takes."""
    if units == "utf-8":
        return len(character.encode("utf-8", "surrogatepass"))
    if units == "utf-32":
        return 1
    return 2 if ord(character) > 0xFFFF else 1


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="tensorcopy-lsp", description="flake8-tensorcopy's language server "
                                     "(diagnostics and quick fixes for editors), over stdin and stdout.")
    parser.add_argument("--stdio", action="store_true", help="talk over stdin/stdout (the default; accepted "
                        "because some clients always pass it)")
    parser.add_argument("--version", action="version", version=f"tensorcopy-lsp {__version__}")
    parser.parse_args(argv)
    try:
        server = build_server()
    except ImportError as error:
        print(f"tensorcopy-lsp: {error.name or 'pygls'} is missing: {install_hint('server')}",
              file=sys.stderr)
        return 2
    server.start_io()
    return 0


def build_server():
    """The pygls server with its features (imports pygls: ImportError without the extra)."""
    from lsprotocol import types
    from pygls.lsp.server import LanguageServer
    from pygls.protocol import LanguageServerProtocol, lsp_method

    class Protocol(LanguageServerProtocol):
        """pygls's protocol, but a change is applied by ``did_change`` alone: pygls's own copy of
        a document splits lines where LSP does not, and its conversion of a range's positions
        rewrites them in the params every handler then gets."""

        @lsp_method(types.TEXT_DOCUMENT_DID_CHANGE)
        def lsp_text_document__did_change(self, params: types.DidChangeTextDocumentParams):
            yield self.fm.features[types.TEXT_DOCUMENT_DID_CHANGE], (params,), None

    server = LanguageServer(NAME, __version__, protocol_cls=Protocol,
                            text_document_sync_kind=types.TextDocumentSyncKind.Incremental)
    pending: Dict[str, asyncio.TimerHandle] = {}
    documents: Dict[str, OpenDocument] = {}
    linted: Dict[str, Linted] = {}
    modules: Dict[str, ModuleCache] = {}  # per open document
    configurations = Configurations()

    def relint(uri: str) -> bool:
        """Lint the document again if its text, version or configuration changed since it was
        last linted; whether it did."""
        document = documents[uri]
        known = linted.get(uri)
        if (known is not None and (known.version, known.source) == (document.version, document.source)
                and not configuration_changed(known)):
            return False
        linted[uri] = lint_text(document.source, document.directory, document.version,
                                modules.setdefault(uri, ModuleCache()), configurations)
        return True

    def configuration_changed(known: Linted) -> bool:
        try:
            options = configurations.options(known.directory)
        except ValueError as error:
            return known.options is not None or known.problem != str(error)
        return options is not known.options

    def current(uri: str) -> Linted:
        """The document's findings for its current text, linting it again if it changed."""
        relint(uri)
        return linted[uri]

    def units() -> str:
        encoding = server.workspace.position_encoding
        return str(getattr(encoding, "value", encoding) or "utf-16")

    def client_range(uri: str, source: str, start: tuple, end: tuple):
        """A 0-based (line, character) range in the units the client counts in (UTF-16 by default)."""
        codec = server.workspace.position_codec
        lines = source_lines(source)
        return codec.range_to_client_units(lines, types.Range(types.Position(*start), types.Position(*end)))

    def row_range(uri: str, source: str, row: dict):
        return client_range(uri, source, (row["line"] - 1, row["column"] - 1),
                            (row["end_line"] - 1, row["end_column"] - 1))

    def publish(uri: str, only_if_changed: bool = False) -> None:
        """Publish the document's diagnostics (``only_if_changed``: unless it was linted as it
        is already); a buffer that does not parse publishes nothing, so the last ones stay."""
        pending.pop(uri, None)
        if not relint(uri) and only_if_changed:
            return
        result = linted[uri]
        if result.unparsed:
            return
        diagnostics = [
            types.Diagnostic(
                range=row_range(uri, result.source, row), message=row["message"],
                severity=types.DiagnosticSeverity.Warning, code=row["code"], source=NAME,
                code_description=types.CodeDescription(href=rule_url(row["code"])),
            )
            for row in result.rows
        ]
        if result.problem is not None:
            diagnostics.append(types.Diagnostic(
                range=types.Range(types.Position(0, 0), types.Position(0, 0)), message=result.problem,
                severity=types.DiagnosticSeverity.Error, code="TEN001", source=NAME))
        server.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, diagnostics=diagnostics, version=result.version))

    def cancel_pending(uri: str) -> None:
        handle = pending.pop(uri, None)
        if handle is not None:
            handle.cancel()

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(params: types.DidOpenTextDocumentParams) -> None:
        uri = params.text_document.uri
        path = server.workspace.get_text_document(uri).path
        documents[uri] = OpenDocument(params.text_document.version, params.text_document.text,
                                      Path(path).parent if path else Path.cwd())
        linted.pop(uri, None)
        publish(uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    async def did_change(params: types.DidChangeTextDocumentParams) -> None:
        uri = params.text_document.uri
        document = documents[uri]
        for change in params.content_changes:
            if isinstance(change, types.TextDocumentContentChangePartial):
                where = change.range
                document.source = apply_change(document.source, (where.start.line, where.start.character),
                                               (where.end.line, where.end.character), change.text, units())
            else:
                document.source = change.text
        document.version = params.text_document.version
        cancel_pending(uri)
        pending[uri] = asyncio.get_running_loop().call_later(DEBOUNCE_SECONDS, publish, uri)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(params: types.DidSaveTextDocumentParams) -> None:
        cancel_pending(params.text_document.uri)
        publish(params.text_document.uri, only_if_changed=True)  # pyproject.toml may have changed

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(params: types.DidCloseTextDocumentParams) -> None:
        uri = params.text_document.uri
        cancel_pending(uri)
        documents.pop(uri, None)
        linted.pop(uri, None)
        modules.pop(uri, None)
        server.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))

    @server.feature(types.TEXT_DOCUMENT_CODE_ACTION, types.CodeActionOptions(
        code_action_kinds=[types.CodeActionKind.QuickFix, FIX_ALL_KIND]))
    def code_action(params: types.CodeActionParams) -> List[types.CodeAction]:
        uri = params.text_document.uri
        result = current(uri)
        wanted = params.context.only
        actions = []
        if not wanted or any(types.CodeActionKind.QuickFix.value.startswith(kind) for kind in wanted):
            first, last = params.range.start.line + 1, params.range.end.line + 1
            actions.extend(quick_fix(uri, result, index) for index, row in enumerate(result.rows)
                           if row["fix"] is not None and row["line"] <= last and first <= row["end_line"])
        if not wanted or any(FIX_ALL_KIND.startswith(kind) for kind in wanted):
            actions.extend(fix_all(uri, result))
        return actions

    def quick_fix(uri: str, result: Linted, index: int) -> types.CodeAction:
        row = result.rows[index]
        edits = [types.TextEdit(range=client_range(uri, result.source, (edit["line"] - 1, edit["column"] - 1),
                                                   (edit["end_line"] - 1, edit["end_column"] - 1)),
                                new_text=edit["content"])
                 for edit in result.fix_edits(index)]
        replacement = edits[0].new_text.splitlines()[0]
        safety = "" if row["fix"]["safe"] else " (unsafe fix: it changes what the code shares on purpose)"
        return types.CodeAction(
            title=f"{row['code']}: use {replacement}{safety}", kind=types.CodeActionKind.QuickFix,
            is_preferred=row["fix"]["safe"], edit=types.WorkspaceEdit(changes={uri: edits}),
            diagnostics=[types.Diagnostic(range=row_range(uri, result.source, row), message=row["message"],
                                          code=row["code"], source=NAME)],
        )

    def fix_all(uri: str, result: Linted) -> List[types.CodeAction]:
        if result.options is None or not any(row["fix"] is not None and row["fix"]["safe"] for row in result.rows):
            return []
        try:
            fixed = fix_source(result.source, configurations.options(result.directory).rules, unsafe=False)
        except (SourceError, ValueError):
            return []
        edit = edit_for_fixed(result.source, fixed.source)
        if edit is None:
            return []
        start, end, text = edit
        return [types.CodeAction(
            title="Fix all safe tensorcopy findings", kind=FIX_ALL_KIND,
            edit=types.WorkspaceEdit(changes={uri: [types.TextEdit(range=client_range(uri, result.source, start, end),
                                                                   new_text=text)]}),
        )]

    return server


if __name__ == "__main__":
    sys.exit(main())
