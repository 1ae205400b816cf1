"""Findings of unchanged files, kept between runs (like ``.ruff_cache``).

An entry holds the findings of one source text; its name is a hash of that text and of
everything else the findings depend on: the tool's version and code, the rules selected and
whether unsafe fixes apply. An edited file, another configuration or an upgrade simply misses.
Entries are written to a temporary file and renamed, so parallel workers (``-j``) and
interrupted runs never leave a half-written entry. An entry is trusted only when it is whole:
its rows have the shape ``finding_row`` gives, lie inside the text, and match the checksum
stored beside them, a hash of the rows and of the entry's own key (an entry copied over
another one, or rows edited by hand, do not match). Anything else is a miss, and the fresh
result replaces it.
"""

import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any, List, Optional, Sequence

from flake8_tensorcopy import __version__

DIRECTORY_NAME = ".tensorcopy_cache"
_PACKAGE = Path(__file__).resolve().parent


def code_fingerprint() -> str:
    """A hash of the package's own files: an edited checkout (same version) must not be
    served findings its previous code computed."""
    digest = hashlib.sha256(__version__.encode())
    for path in sorted(_PACKAGE.rglob("*")):
        if path.suffix in (".py", ".json") and "__pycache__" not in path.parts:
            digest.update(path.relative_to(_PACKAGE).as_posix().encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()


class Cache:
    """Per-source-text findings under ``directory``; plain data, so worker processes get a copy."""

    def __init__(self, directory: Path, settings: Sequence[str]):
        self.directory = Path(directory)
        self.settings = hashlib.sha256("\0".join([code_fingerprint(), *settings]).encode()).hexdigest()

    def create(self) -> None:
        """Make the directory, ignored by git and marked as a cache for backup tools. Raises OSError."""
        self.directory.mkdir(parents=True, exist_ok=True)
        ignore = self.directory / ".gitignore"
        if not ignore.exists():
            _write_atomically(ignore, "# Created by tensorcopy-fix automatically.\n*\n")
        tag = self.directory / "CACHEDIR.TAG"
        if not tag.exists():
            _write_atomically(tag, "Signature: 8a477f597d28d172789f06886806bc55\n"
                                   "# This file is a cache directory tag created by tensorcopy-fix.\n")

    def _key(self, source: str) -> str:
        digest = hashlib.sha256(self.settings.encode())
        digest.update(source.encode("utf-8", "surrogatepass"))
        return digest.hexdigest()

    def _entry(self, key: str) -> Path:
        return self.directory / key[:2] / f"{key[2:]}.json"

    def get(self, source: str) -> Optional[List[dict]]:
        """The findings stored for this text, or None when there is no whole entry for it."""
        key = self._key(source)
        try:
            with open(self._entry(key), encoding="utf-8") as stream:
                entry = json.load(stream)
        except (OSError, ValueError, RecursionError):
            return None
        if not isinstance(entry, dict) or set(entry) != {"checksum", "rows"}:
            return None
        rows = entry["rows"]
        if not isinstance(rows, list) or entry["checksum"] != _checksum(key, rows):
            return None
        last_line = source.count("\n") + 1
        return rows if all(_is_row(row, last_line) for row in rows) else None

    def put(self, source: str, rows: List[dict]) -> None:
        """Store the findings of this text; a cache that cannot be written is no error."""
        key = self._key(source)
        entry = self._entry(key)
        try:
            entry.parent.mkdir(exist_ok=True)
            _write_atomically(entry, json.dumps({"checksum": _checksum(key, rows), "rows": rows},
                                                separators=(",", ":")))
        except OSError:
            pass


def _checksum(key: str, rows: Any) -> str:
    """A hash of the rows as JSON and of the key they are stored under."""
    text = json.dumps(rows, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(f"{key}\0{text}".encode("utf-8", "surrogatepass")).hexdigest()


_SPAN = ("line", "column", "end_line", "end_column")


def _is_row(row: Any, last_line: int) -> bool:
    """Whether ``row`` is a finding row (``output.finding_row``, with its fix's edits) of a text
    of ``last_line`` lines."""
    if not isinstance(row, dict) or set(row) != {*_SPAN, "code", "message", "fix"}:
        return False
    if not (_is_span(row, last_line) and isinstance(row["code"], str) and isinstance(row["message"], str)):
        return False
    fix = row["fix"]
    if fix is None:
        return True
    if not isinstance(fix, dict) or set(fix) != {"safe", "applicable", "edits"}:
        return False
    edits = fix["edits"]
    return (type(fix["safe"]) is bool and type(fix["applicable"]) is bool and isinstance(edits, list) and bool(edits)
            and all(isinstance(edit, dict) and set(edit) == {*_SPAN, "content"} and _is_span(edit, last_line)
                    and isinstance(edit["content"], str) for edit in edits))


def _is_span(row: dict, last_line: int) -> bool:
    """Positive whole numbers (1-based), in order, on lines of the text."""
    numbers = [row[name] for name in _SPAN]
    if not all(type(number) is int and number >= 1 for number in numbers):
        return False
    line, column, end_line, end_column = numbers
    return line <= end_line <= last_line and (line, column) <= (end_line, end_column)


def _write_atomically(path: Path, text: str) -> None:
    handle, temporary = tempfile.mkstemp(dir=str(path.parent), prefix=".", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(text)
        os.replace(temporary, path)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise
