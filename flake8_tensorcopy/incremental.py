"""LibCST parses that reuse the top-level statements whose text did not change (the language
server's re-lint, where a keystroke changes one statement of a 500-line file).

The source is cut into chunks at top-level statements, where the cut cannot change what LibCST
builds: the lines between two statements (blank lines, comments at column 0) belong to the
next statement, as LibCST assigns them; a statement followed by an indented comment (which
LibCST gives to the block before it) or ending in a backslash stays with the next one. Each
chunk is parsed alone, once, and its statements are kept, keyed by the chunk's text; a module
is assembled from them with the header, footer and settings a whole parse would give. On any
doubt (CR or form feed line ends, an indentation other than four spaces, a chunk that does not
parse alone or leaves lines outside its statements) the whole source is parsed instead.

LibCST nodes are immutable and the analysis keeps its per-node state per lint, so a statement
is reused as is; one chunk text met twice is parsed twice, so no node occurs twice in a module.
"""

import ast
import re
from typing import Dict, List, Optional, Tuple

import libcst as cst

from flake8_tensorcopy.engine import parse

_LINE = re.compile(r"[^\n]*\n|[^\n]+$")
_DEFAULT_INDENT = "    "


class ModuleCache:
    """The chunks of the last source parsed, to parse the next version of it incrementally."""

    def __init__(self) -> None:
        self._chunks: Dict[Tuple[bool, str], cst.Module] = {}
        self.chunks = 0  # the last call's chunks (0: parsed whole) and how many it took from the
        self.reused = 0  # call before (for tests and benchmarks)

    def parse(self, source: str, tree: ast.Module) -> cst.Module:
        """``source`` parsed as ``engine.parse`` would, reusing unchanged chunks; ``tree`` is the
        stdlib ast of a source with the same lines (the statements are cut where it says)."""
        self.chunks = self.reused = 0
        chunks = _chunks(source, tree)
        if chunks is None:
            self._chunks = {}
            return parse(source)
        known, self._chunks = self._chunks, {}
        modules = []
        for index, text in enumerate(chunks):
            key = (index == 0, text)
            module = known.pop(key, None)
            if module is None:
                try:
                    module = cst.parse_module(text)
                except Exception:  # the whole parse says what is wrong, as without this cache
                    module = None
            else:
                self.reused += 1
            if module is None or not _fits(module, index == len(chunks) - 1):
                self._chunks = {}
                self.reused = 0
                return parse(source)
            self._chunks.setdefault(key, module)
            modules.append(module)
        self.chunks = len(chunks)
        return _assembled(modules)


def _fits(module: cst.Module, last: bool) -> bool:
    """Whether a chunk's module can stand where it is in the whole one."""
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


def _chunks(source: str, tree: ast.Module) -> Optional[List[str]]:
    """The chunks' texts, in order (they join to ``source``); None when it is not cut."""
    if "\r" in source or "\f" in source or len(tree.body) < 2:
        return None
    lines = _LINE.findall(source)
    cuts = [0]  # 0-based first line of each chunk
    previous_end = None
    for statement in tree.body:
        start = min([statement.lineno] + [decorator.lineno for decorator in getattr(statement, "decorator_list", ())])
        if previous_end is not None:
            cut = _cut_before(lines, start, previous_end)
            if cut is not None and cut > cuts[-1]:
                cuts.append(cut)
        previous_end = statement.end_lineno
    if len(cuts) < 2 or previous_end > len(lines):
        return None
    cuts.append(len(lines))
    return ["".join(lines[begin:end]) for begin, end in zip(cuts, cuts[1:])]


def _cut_before(lines: List[str], start: int, previous_end: int) -> Optional[int]:
    """The 0-based line where the chunk of the statement starting on line ``start`` begins (its
    blank lines and column-0 comments above it), or None when it must stay with the previous
    statement, which ends on line ``previous_end`` (1-based)."""
    if start <= previous_end or lines[previous_end - 1].rstrip("\n").endswith("\\"):
        return None  # ``a = 1; b = 2``, or a line continued into the gap
    cut = start - 1
    while cut > 0:
        line = lines[cut - 1]
        if line.strip() == "" or (cut > previous_end and line.startswith("#")):
            cut -= 1
            continue
        break
    if cut > previous_end:
        return None  # an indented comment (or something else) in the gap: LibCST may give it to the block above
    return cut
