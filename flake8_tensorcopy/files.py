"""Reading, finding and writing the files ``tensorcopy-fix`` is given, without losing anything.

Encoding (coding cookie, BOM), line endings and file mode survive a rewrite; a write goes
to a temporary file beside the original and replaces it in one step; symlinks are never
written through.
"""

import fnmatch
import io
import os
import stat
import tempfile
import tokenize
from pathlib import Path
from typing import Iterator, List, Sequence, Tuple

_SKIPPED_DIRECTORIES = frozenset({".git", ".hg", ".svn", "__pycache__", ".tox", ".nox", ".mypy_cache",
                                  ".pytest_cache", ".ruff_cache", ".tensorcopy_cache", "node_modules", ".eggs"})


def read_source(path: Path) -> Tuple[str, str]:
    """The text of a Python file and the encoding it was written in (``utf-8-sig`` for a BOM)."""
    raw = path.read_bytes()
    return decode(raw)


def decode(raw: bytes) -> Tuple[str, str]:
    """Decode as Python does (PEP 263 cookie, BOM), keeping line endings as they are."""
    encoding, _lines = tokenize.detect_encoding(io.BytesIO(raw).readline)
    return raw.decode(encoding), encoding


def write_atomically(path: Path, text: str, encoding: str) -> None:
    """Replace ``path`` with ``text`` in one step, keeping its mode; never through a symlink."""
    if path.is_symlink():
        raise OSError(f"{path}: not written, it is a symlink")
    data = text.encode(encoding)
    mode = stat.S_IMODE(path.stat().st_mode)
    handle, temporary = tempfile.mkstemp(dir=str(path.parent), prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
        os.chmod(temporary, mode)
        os.replace(temporary, path)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise


class Excluder:
    """gitignore-style patterns: ``build/`` (a directory), ``/top.py`` (anchored at the root
    given), ``*.pb2.py`` (a name anywhere), ``tests/data/*.py`` (a path under the root)."""

    def __init__(self, patterns: Sequence[str]):
        self.patterns = [pattern.strip() for pattern in patterns if pattern.strip() and not pattern.startswith("#")]

    def with_file(self, ignore_file: Path, base: Path) -> "Excluder":
        """These patterns plus those of a .gitignore, anchored at ``base`` relative to the root."""
        if not ignore_file.is_file():
            return self
        try:
            lines = ignore_file.read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            return self
        prefix = "" if str(base) == "." else base.as_posix() + "/"
        extra = []
        for line in lines:
            line = line.strip()
            if not line or line.startswith(("#", "!")):
                continue
            directory_only = line.endswith("/")
            core = line.strip("/")
            if "/" in line.rstrip("/"):
                core = "/" + prefix + core
            elif prefix:
                core = prefix + "**/" + core
            extra.append(core + ("/" if directory_only else ""))
        return Excluder(self.patterns + extra)

    def excluded(self, relative: str, is_directory: bool) -> bool:
        name = relative.rsplit("/", 1)[-1]
        for pattern in self.patterns:
            directory_only = pattern.endswith("/")
            if directory_only and not is_directory:
                continue
            core = pattern.rstrip("/")
            if core.startswith("/"):
                if _match(relative, core[1:]):
                    return True
            elif "/" in core:
                if _match(relative, core) or _match(relative, "**/" + core):
                    return True
            elif fnmatch.fnmatchcase(name, core):
                return True
        return False

    def excluded_path(self, path: str) -> bool:
        """Whether a file given by name is excluded: by its own path, or because a directory
        on its path is (``build/`` excludes ``build/gen.py``; ruff's force-exclude)."""
        parts = [part for part in Path(os.path.normpath(path)).as_posix().split("/") if part not in ("", ".")]
        directories = ["/".join(parts[:end]) for end in range(1, len(parts))]
        return self.excluded("/".join(parts), False) or any(self.excluded(d, True) for d in directories)


def _match(path: str, pattern: str) -> bool:
    """fnmatch where ``**/`` may also match nothing."""
    if fnmatch.fnmatchcase(path, pattern):
        return True
    return "**/" in pattern and fnmatch.fnmatchcase(path, pattern.replace("**/", ""))


def python_files(paths: Sequence[str], excluder: Excluder, force_exclude: bool = True) -> Iterator[Path]:
    """Files to process: given files as they are (unless excluded, with ``force_exclude``),
    ``*.py`` under given directories, skipping VCS/cache/virtualenv folders, .gitignore'd
    paths and symlinks."""
    for given in paths:
        root = Path(given)
        if not root.is_dir():
            if not (force_exclude and excluder.excluded_path(given)):
                yield root
            continue
        yield from _walk(root, Path("."), excluder.with_file(root / ".gitignore", Path(".")))


def _walk(root: Path, relative: Path, excluder: Excluder) -> Iterator[Path]:
    directory = root / relative
    try:
        entries: List[os.DirEntry] = sorted(os.scandir(directory), key=lambda entry: entry.name)
    except OSError:
        return
    for entry in entries:
        child = relative / entry.name
        if entry.is_symlink():
            continue
        if entry.is_dir():
            if entry.name in _SKIPPED_DIRECTORIES or (Path(entry.path) / "pyvenv.cfg").exists():
                continue
            if excluder.excluded(child.as_posix(), True):
                continue
            yield from _walk(root, child, excluder.with_file(Path(entry.path) / ".gitignore", child))
        elif entry.name.endswith(".py") and not excluder.excluded(child.as_posix(), False):
            yield root / child
