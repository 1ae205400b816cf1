"""LibCST parses that reuse the statements whose text did not change (the language server's
re-lint, where a keystroke changes one statement of a 500-line file).

The source is cut into chunks at top-level statements, and a class alone in its chunk into
its head and its members, where the cut cannot change what LibCST builds: the lines between
two statements (blank lines, comments at the block's indentation) belong to the next
statement, as LibCST assigns them; a statement followed by a comment indented otherwise
(which LibCST may give to the block before it) or ending in a backslash stays with the next
one. Each piece is parsed alone (a member inside a ``class _:`` header), once, keyed by its
text; a module is assembled from them with the header, footer and settings a whole parse
would give. On any doubt (CR or form feed line ends, an indentation other than four spaces, a
piece that does not parse alone or leaves lines outside its statements) the whole source is
parsed instead.

LibCST nodes are immutable and the analysis keeps its per-node state per lint, so a statement
is reused as is; a piece is used once per parse (a text met twice is kept twice), so no node
occurs twice in a module.
"""

import ast
import re
from typing import Dict, List, Optional, Tuple

import libcst as cst

from flake8_tensorcopy.engine import parse

_LINE = re.compile(r"[^\n]*\n|[^\n]+$")
_DEFAULT_INDENT = "    "
_MEMBER_OF = "class _:\n"  # a class member's text is parsed inside this header


class ModuleCache:
    """The pieces of the last source parsed, to parse the next version of it incrementally."""

    def __init__(self) -> None:
        self._pieces: Dict[Tuple[str, str], List[cst.Module]] = {}
        self.chunks = 0  # the last call's pieces (0: parsed whole) and how many it took from the
        self.reused = 0  # call before (for tests and benchmarks)

    def parse(self, source: str, tree: ast.Module) -> cst.Module:
        """``source`` parsed as ``engine.parse`` would, reusing unchanged pieces; ``tree`` is the
        stdlib ast of a source with the same lines (the statements are cut where it says)."""
        self.chunks = self.reused = 0
        chunks = _chunks(source, tree)
        known, self._pieces = self._pieces, {}
        modules = []
        for index, chunk in enumerate(chunks or ()):
            last = index == len(chunks) - 1
            module = self._chunk_module(chunk, "first" if index == 0 else "next", known, last)
            if module is None or not _fits(module, last):
                chunks = None
                break
            modules.append(module)
        if not chunks:
            self._pieces = {}
            self.chunks = self.reused = 0
            return parse(source)
        self.chunks = sum(map(len, chunks))
        return _assembled(modules)

    def _chunk_module(self, chunk: Tuple[str, ...], role: str, known: dict, last: bool) -> Optional[cst.Module]:
        """A chunk's module; a class cut into its head and members is assembled from them (in
        the ``last`` chunk, the lines after the last member are the module's footer)."""
        head = self._piece((role, chunk[0]), chunk[0], known)
        if head is None or len(chunk) == 1:
            return head
        members = []
        for number, text in enumerate(chunk[1:], 2):
            wrapper = self._piece(("member", text), _MEMBER_OF + text, known)
            ends = last and number == len(chunk)
            if wrapper is None or not _fits(wrapper, last=ends) or wrapper.body[0].body.footer:
                return None
            members.extend(wrapper.body[0].body.body)
        (definition,) = head.body
        if type(definition) is not cst.ClassDef or type(definition.body) is not cst.IndentedBlock \
                or definition.body.footer or head.footer:
            return None
        block = definition.body.with_changes(body=[*definition.body.body, *members])
        return head.with_changes(body=[definition.with_changes(body=block)], footer=wrapper.footer,
                                 has_trailing_newline=wrapper.has_trailing_newline)

    def _piece(self, key: Tuple[str, str], text: str, known: dict) -> Optional[cst.Module]:
        """The module of one piece: the last parse's (each one used once), or parsed now."""
        same = known.get(key)
        if same:
            module = same.pop()
            self.reused += 1
        else:
            try:
                module = cst.parse_module(text)
            except Exception:  # the whole parse says what is wrong, as without this cache
                return None
        self._pieces.setdefault(key, []).append(module)
        return module


def _fits(module: cst.Module, last: bool) -> bool:
    """Whether a piece's module can stand where it is in the whole one."""
    if module.default_indent != _DEFAULT_INDENT or module.default_newline != "\n" or not module.body:
        return False
    return last or (not module.footer and module.has_trailing_newline)


def _assembled(modules: List[cst.Module]) -> cst.Module:
    """One module from its chunks: the first one's header, the last one's footer, and the
    lines before each later chunk's first statement given to that statement."""
    body = list(modules[0].body)
    for module in modules[1:]:
        first = module.body[0]
        if module.header:
            first = first.with_changes(leading_lines=[*module.header, *first.leading_lines])
        body.append(first)
        body.extend(module.body[1:])
    return modules[0].with_changes(body=body, footer=modules[-1].footer,
                                   has_trailing_newline=modules[-1].has_trailing_newline)


def _chunks(source: str, tree: ast.Module) -> Optional[List[Tuple[str, ...]]]:
    """The chunks, in order (their texts join to ``source``): a chunk's text, or for a class
    alone in its chunk, its head (up to its second member) and the texts of its other members.
    None when the source is not cut."""
    if "\r" in source or "\f" in source or len(tree.body) < 2:
        return None
    lines = _LINE.findall(source)
    if tree.body[-1].end_lineno > len(lines):
        return None
    cuts, alone = _cuts(lines, tree.body, 0, "")
    if len(cuts) < 2:
        return None
    cuts.append(len(lines))
    chunks = []
    for begin, end, statement in zip(cuts, cuts[1:], alone):
        # ``end`` may be before the class's last line: a blanked body's blank lines go to the next
        # chunk; after it only in the last chunk, whose lines after the class are the module's footer
        if type(statement) is ast.ClassDef and (end <= statement.end_lineno or end == len(lines)):
            chunks.append(_class_pieces(lines, begin, end, statement))
        else:
            chunks.append(("".join(lines[begin:end]),))
    return chunks


def _class_pieces(lines: List[str], begin: int, end: int, definition: ast.ClassDef) -> Tuple[str, ...]:
    """A class's chunk (lines ``begin`` to ``end``) cut before its members as its module is cut
    before its statements."""
    first = definition.body[0]
    indent = lines[first.lineno - 1][:first.col_offset]
    if first.lineno <= definition.lineno or indent.strip(" "):
        return ("".join(lines[begin:end]),)
    cuts, _ = _cuts(lines, definition.body, begin, indent)
    cuts.append(end)
    pieces = tuple("".join(lines[start:end]) for start, end in zip(cuts, cuts[1:]))
    if any(not piece.strip() for piece in pieces[1:]):  # a body blanked for the parse (``pass``): one piece
        return ("".join(lines[begin:end]),)
    return pieces


def _cuts(lines: List[str], statements: List[ast.stmt], begin: int, indent: str) -> Tuple[List[int], list]:
    """The 0-based first lines of the chunks of a block's ``statements`` (the first at
    ``begin``), and for each chunk its statement when it holds one alone (else None)."""
    cuts, alone = [begin], [None]
    previous_end = None
    for statement in statements:
        start = min([statement.lineno] + [decorator.lineno for decorator in getattr(statement, "decorator_list", ())])
        cut = None if previous_end is None else _cut_before(lines, start, previous_end, indent)
        if cut is not None and cut > cuts[-1]:
            cuts.append(cut)
            alone.append(statement)
        else:
            alone[-1] = statement if previous_end is None else None
        previous_end = statement.end_lineno
    return cuts, alone


def _cut_before(lines: List[str], start: int, previous_end: int, indent: str) -> Optional[int]:
    """The 0-based line where the chunk of the statement starting on line ``start`` begins (its
    blank lines and comments at the block's ``indent`` above it), or None when it must stay
    with the previous statement, which ends on line ``previous_end`` (1-based)."""
    if start <= previous_end or lines[previous_end - 1].rstrip("\n").endswith("\\"):
        return None  # ``a = 1; b = 2``, or a line continued into the gap
    comment = indent + "#"
    cut = start - 1
    while cut > 0:
        line = lines[cut - 1]
        if line.strip() == "" or (cut > previous_end and line.startswith(comment)):
            cut -= 1
            continue
        break
    if cut > previous_end:
        return None  # a comment indented otherwise (or something else) in the gap: it may belong to the block above
    return cut
