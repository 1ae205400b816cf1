"""Jupyter notebooks (``.ipynb``) for ``tensorcopy-fix``, read as JSON with the standard library.

The code cells of a notebook form one module, in order, as the kernel runs them: an alias made
in one cell and written in another is found. Each cell is preceded by a marker comment, so
the fixed module splits back into its cells; IPython syntax (``%%`` cells, ``%``/``!`` lines,
``x = !ls``, ``obj?`` help) is never parsed as Python: a magic line (and each line its ``\\``
continues) becomes a ``pass`` placeholder at the magic's indentation (line numbers hold) and
is put back verbatim afterwards. A cell magic whose body is Python run in the kernel
(``%%time``, ``%%timeit``, ``%%capture``, ``%%debug``, ``%%prun``) is such a line and its body
is linted, as ruff does; any other ``%%`` cell (``%%bash``, ``%%html``, and ``%%python`` or
``%%pypy``, whose body runs in another process, with its own names) is left out. Nothing in
a notebook is executed.

Fixes go back into the cells' sources (a list of lines stays a list, a string a string); the
document is written again with its own indentation, key order, escaping and final newline, and
only when writing the unchanged document that way gives back its bytes exactly: a layout we
cannot reproduce is an error, never a reformatted file.
"""

import bisect
import io
import json
import re
import tokenize
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Dict, List, Optional, Set, Tuple

from flake8_tensorcopy.cli import FileResult, Options, one_line, process_source, unified_diff
from flake8_tensorcopy.files import read_regular_file, write_atomically

SUFFIX = ".ipynb"

_SHELL_OR_MAGIC = re.compile(r"[ \t]*[%!]")
_ASSIGNED_MAGIC = re.compile(r"[ \t]*[\w.,()\[\] \t*]*\w[\]) \t]*=[ \t]*[%!](?!=)")
_HELP = re.compile(r"[ \t]*(?:\?+[ \t]*[A-Za-z_*][\w.*]*|%{0,2}[A-Za-z_*][\w.*]*\?\??)[ \t]*")
_LINE_WITH_END = re.compile(r"[^\n]*\n|[^\n]+$")
_ON_LINE = re.compile(r"\bon line (\d+)\b")
_LINE = re.compile(r"\bline (\d+)\b")
_CELL_MAGIC = re.compile(r"\s*%%(\S*)")
# cell magics whose body is Python run in the kernel's namespace (ruff also lints %%python,
# %%python3 and %%pypy, whose body runs in a separate interpreter: not this module)
KERNEL_PYTHON_CELL_MAGICS = frozenset({"capture", "debug", "prun", "time", "timeit"})


class NotANotebook(ValueError):
    """The file is not a notebook we can read; the message says why in a few words."""


@dataclass
class CodeCell:
    """One code cell in the module: where it sits in the notebook and in the module."""

    index: int  # in the notebook's ``cells`` list, 0-based
    first_line: int  # the module line of the cell's first line
    ended: bool  # its source ends with a newline (the module adds one otherwise)


@dataclass
class NotebookModule:
    """A notebook's code cells as one Python module, and how to map it back."""

    document: dict
    source: str
    token: str  # the marker prefix, absent from every cell
    cells: List[CodeCell] = field(default_factory=list)
    magics: List[str] = field(default_factory=list)  # the masked lines, by placeholder number

    def cell_of(self, line: int) -> Tuple[CodeCell, int]:
        """The cell holding module line ``line`` and the line's number inside the cell."""
        position = bisect.bisect_right([cell.first_line for cell in self.cells], line) - 1
        cell = self.cells[max(position, 0)]
        return cell, line - cell.first_line + 1

    def cell_sources(self, fixed: str) -> Dict[int, str]:
        """Each cell's new source (by notebook index) from the fixed module, magics restored."""
        chunks = re.split(rf"^# {re.escape(self.token)}-cell\n", fixed, flags=re.MULTILINE)[1:]
        if len(chunks) != len(self.cells):
            raise ValueError("the fixed code no longer splits into its cells")
        restore = re.compile(rf"^[ \t]*pass  # {re.escape(self.token)}-magic (\d+)$", re.MULTILINE)
        sources = {}
        for cell, chunk in zip(self.cells, chunks):
            text = restore.sub(lambda match: self.magics[int(match.group(1))], chunk)
            sources[cell.index] = text if cell.ended else text[:-1]
        return sources


def read_notebook(raw: bytes) -> NotebookModule:
    """The module of a notebook's code cells. Raises NotANotebook for anything else (invalid
    JSON, no ``cells`` list, a cell whose source is not text)."""
    try:
        document = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as error:
        raise NotANotebook(f"not UTF-8 ({error.reason} at byte {error.start})") from None
    except json.JSONDecodeError as error:
        raise NotANotebook(f"invalid JSON ({error.msg}: line {error.lineno} column {error.colno})") from None
    cells = document.get("cells") if isinstance(document, dict) else None
    if not isinstance(cells, list) or not all(isinstance(cell, dict) for cell in cells):
        raise NotANotebook("not a notebook (no list of cells; nbformat 4 is read)")
    texts = {}
    for index, cell in enumerate(cells):
        if cell.get("cell_type") == "code" and _is_python(document):
            texts[index] = _text(cell.get("source", ""), index)
    token = _unused_token(texts.values())
    notebook = NotebookModule(document, "", token)
    parts: List[str] = []
    line = 1
    for index, text in texts.items():
        magic = _CELL_MAGIC.match(text)
        if magic and magic.group(1) not in KERNEL_PYTHON_CELL_MAGICS:
            continue  # its body is another language, or Python run elsewhere
        parts.append(f"# {token}-cell\n")
        line += 1
        masked = _masked(text, token, notebook.magics)
        ended = masked.endswith("\n")
        notebook.cells.append(CodeCell(index, line, ended))
        parts.append(masked if ended else masked + "\n")
        line += masked.count("\n") + (not ended)
    notebook.source = "".join(parts)
    return notebook


def _is_python(document: dict) -> bool:
    """Whether the kernel runs Python (a notebook that does not say is taken for Python)."""
    metadata = document.get("metadata") if isinstance(document.get("metadata"), dict) else {}
    for key, name_key in (("language_info", "name"), ("kernelspec", "language")):
        section = metadata.get(key)
        if isinstance(section, dict) and isinstance(section.get(name_key), str):
            return section[name_key].lower() == "python"
    return True


def _text(source, index: int) -> str:
    if isinstance(source, str):
        return source
    if isinstance(source, list) and all(isinstance(part, str) for part in source):
        return "".join(source)
    raise NotANotebook(f"cell {index + 1}: its source is not text")


def _unused_token(texts) -> str:
    """A marker prefix that no cell contains (the same one for the same notebook: the cache
    is keyed by the module's text)."""
    number = 0
    while any(f"tensorcopy{number}" in text for text in texts):
        number += 1
    return f"tensorcopy{number}"


def _masked(text: str, token: str, magics: List[str]) -> str:
    """The cell with each IPython line (and the lines its trailing ``\\`` continues, however
    indented) replaced by a numbered ``pass`` placeholder at the IPython line's indentation."""
    lines = _LINE_WITH_END.findall(text)
    candidates = {number for number, line in enumerate(lines) if _is_ipython(line.rstrip("\r\n"))}
    if not candidates:
        return text
    inside = _lines_inside_statements(lines, candidates)
    continued, indent = False, ""
    for number, line in enumerate(lines):
        content = line.rstrip("\r\n")
        if not continued:
            if number not in candidates or number in inside:
                continue
            indent = _indentation(content)
        continued = content.endswith("\\")
        lines[number] = indent + f"pass  # {token}-magic {len(magics)}" + line[len(content):]
        magics.append(content)
    return "".join(lines)


def _indentation(line: str) -> str:
    return line[: len(line) - len(line.lstrip(" \t"))]


def _placeholder(line: str, code: str) -> str:
    """``code`` in place of the line, at its indentation and with its line ending."""
    content = line.rstrip("\r\n")
    return _indentation(content) + code + line[len(content):]


def _lines_inside_statements(lines: List[str], candidates: Set[int]) -> Set[int]:
    """The lines (0-based) that continue a statement: inside brackets (``% x)`` continuing a
    formatted string), inside a string, or after a backslash. IPython reads an escape only at
    the start of a statement. The candidate IPython lines are a name ``_`` when tokenizing (a
    bracket they close stays open to the end of the cell); lines past a point where the cell
    does not tokenize are not taken for continuations."""
    source = "".join(_placeholder(line, "_") if number in candidates else line for number, line in enumerate(lines))
    inside: Set[int] = set()
    openings: List[int] = []
    previous_end, newline = 0, True
    try:
        for kind, string, start, end, _ in tokenize.generate_tokens(io.StringIO(source).readline):
            if kind in (tokenize.NL, tokenize.NEWLINE):
                newline = True
                continue
            if kind in (tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT, tokenize.ENDMARKER):
                continue
            if not newline and start[0] > previous_end:  # a backslash continued the line
                inside.update(range(previous_end, start[0]))
            inside.update(range(start[0], end[0]))  # the lines a string token runs on into
            if kind == tokenize.OP and string in "([{":
                openings.append(start[0])
            elif kind == tokenize.OP and string in ")]}" and openings:
                inside.update(range(openings.pop(), start[0]))
            previous_end, newline = end[0], False
    except (tokenize.TokenError, SyntaxError):
        pass  # the end of the cell inside brackets, or bad indentation: what was read stands
    for opened in openings:  # never closed: the rest of the cell
        inside.update(range(opened, len(lines)))
    return inside


def _is_ipython(line: str) -> bool:
    return bool(_SHELL_OR_MAGIC.match(line) or _ASSIGNED_MAGIC.match(line) or _HELP.fullmatch(line))


def process_notebook(path: str, options: Options) -> FileResult:
    """Lint and (unless only reporting) fix one notebook; never raises. Findings carry their
    ``cell`` (1-based, counting every cell) and lines inside it."""
    try:
        raw = read_regular_file(Path(path))
    except Exception as error:
        return FileResult(path, error=f"cannot read: {one_line(error)}")
    result, fixed = process_notebook_bytes(path, raw, options)
    if options.mode == "fix" and result.changed:
        try:
            write_atomically(Path(path), fixed)
        except Exception as error:
            return _not_written(result, f"cannot write: {one_line(error)}")
    return result


def process_notebook_bytes(path: str, raw: bytes, options: Options) -> Tuple[FileResult, bytes]:
    """Lint and (unless only reporting) fix the notebook whose file holds ``raw``, named
    ``path`` (a file, or stdin's ``--stdin-filename``): the result and the fixed notebook's
    bytes, in its own layout (``raw`` itself when nothing changes or something went wrong).
    Never raises; writes nothing."""
    try:
        notebook = read_notebook(raw)
    except NotANotebook as error:
        return FileResult(path, error=f"cannot parse: {error}"), raw
    result, fixed = process_source(path, notebook.source, options)
    if result.error is not None:  # ``line 7`` of the module is ``cell 3, line 2``
        result.error = _LINE.sub(lambda match: _cell_and_line(notebook, int(match.group(1))), result.error)
        return result, raw
    result.applied = [_in_cells(row, notebook) for row in result.applied]
    result.remaining = [_in_cells(row, notebook) for row in result.remaining]
    if not result.changed:
        return result, raw
    try:
        text = raw.decode("utf-8")
        new_text = _rewritten(text, notebook, notebook.cell_sources(fixed))
    except ValueError as error:
        return _not_written(result, f"cannot write: {one_line(error)}"), raw
    if options.mode == "diff":
        result.diff = unified_diff(path, text, new_text)
    return result, new_text.encode("utf-8")


def _not_written(result: FileResult, error: str) -> FileResult:
    """Nothing was fixed: what would have been is left, and the summary says so."""
    result.remaining = result.applied + result.remaining
    result.applied, result.changed, result.left, result.diff = [], False, len(result.remaining), []
    result.error = error
    return result


def _in_cells(row: dict, notebook: NotebookModule) -> dict:
    """A finding row of the module as one of the notebook: its cell, lines inside the cell,
    and lines named in its message (``on line 7`` -> ``on line 2 of cell 3``)."""
    cell, line = notebook.cell_of(row["line"])
    mapped = dict(row, cell=cell.index + 1, line=line, end_line=notebook.cell_of(row["end_line"])[1])
    mapped["message"] = _ON_LINE.sub(lambda match: _line_in_cell(notebook, int(match.group(1)), cell),
                                     row["message"])
    if row["fix"] is not None and "edits" in row["fix"]:
        edits = [dict(edit, line=notebook.cell_of(edit["line"])[1], end_line=notebook.cell_of(edit["end_line"])[1])
                 for edit in row["fix"]["edits"]]
        mapped["fix"] = dict(row["fix"], edits=edits)
    return mapped


def _cell_and_line(notebook: NotebookModule, module_line: int) -> str:
    if not notebook.cells or module_line < notebook.cells[0].first_line:
        return f"line {module_line}"
    cell, line = notebook.cell_of(module_line)
    return f"cell {cell.index + 1}, line {line}"


def _line_in_cell(notebook: NotebookModule, module_line: int, home: CodeCell) -> str:
    cell, line = notebook.cell_of(module_line)
    return f"on line {line}" if cell is home else f"on line {line} of cell {cell.index + 1}"


def _rewritten(text: str, notebook: NotebookModule, sources: Dict[int, str]) -> str:
    """The notebook's JSON text with new cell sources, in its own layout; ValueError when that
    layout cannot be reproduced (then nothing is written)."""
    dump = _layout_of(text, notebook.document)
    if dump is None:
        raise ValueError("its JSON layout cannot be kept (not as Jupyter writes it); fix it in Jupyter "
                         "or save it with Jupyter first")
    for index, source in sources.items():
        cell = notebook.document["cells"][index]
        cell["source"] = _LINE_WITH_END.findall(source) if isinstance(cell["source"], list) else source
    return dump(notebook.document)


def _layout_of(text: str, document: dict) -> Optional[Callable[[dict], str]]:
    """A function writing a document as ``text`` was written (indentation, ASCII escapes,
    final newline), found by writing ``document`` back and comparing; None when no such
    writer gives back ``text`` exactly."""
    second = text.split("\n", 2)[1] if text.count("\n") >= 2 else ""
    indent = len(second) - len(second.lstrip(" ")) if text.startswith("{\n") else None
    ending = "\n" if text.endswith("\n") else ""
    for ensure_ascii in (False, True):
        def dump(value, ensure_ascii=ensure_ascii):
            return json.dumps(value, indent=indent, ensure_ascii=ensure_ascii) + ending
        if dump(document) == text:
            return dump
    return None
