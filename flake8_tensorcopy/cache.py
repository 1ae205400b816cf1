"""Findings of unchanged files, kept between runs (like ``.ruff_cache``).

An entry holds the findings of one source text; its name is a hash of that text and of
everything else the findings depend on: the tool's version and code, the rules selected and
whether unsafe fixes apply. An edited file, another configuration or an upgrade simply misses.
Entries are written to a temporary file and renamed, so parallel workers (``-j``) and
interrupted runs never leave a half-written entry; a damaged entry reads as a miss.
"""

import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import List, Optional, Sequence

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

    def _entry(self, source: str) -> Path:
        digest = hashlib.sha256(self.settings.encode())
        digest.update(source.encode("utf-8", "surrogatepass"))
        name = digest.hexdigest()
        return self.directory / name[:2] / f"{name[2:]}.json"

    def get(self, source: str) -> Optional[List[dict]]:
        """The findings stored for this text, or None."""
        try:
            with open(self._entry(source), encoding="utf-8") as stream:
                rows = json.load(stream)
        except (OSError, ValueError):
            return None
        return rows if isinstance(rows, list) else None

    def put(self, source: str, rows: List[dict]) -> None:
        """Store the findings of this text; a cache that cannot be written is no error."""
        entry = self._entry(source)
        try:
            entry.parent.mkdir(exist_ok=True)
            _write_atomically(entry, json.dumps(rows, separators=(",", ":")))
        except OSError:
            pass


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
