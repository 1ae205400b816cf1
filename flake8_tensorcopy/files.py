"""Reading, finding and writing the files ``tensorcopy-fix`` is given, without losing anything.

Only regular files are read. Encoding (coding cookie, BOM), line endings, file mode, owner and
group survive a rewrite; a write goes to a temporary file beside the original (flushed to disk)
and replaces it in one step. Never written: a path through a symlink, a read-only file, a file
with hard links, a text whose encoding would not give back the same bytes.
"""

import codecs
import io
import os
import re
import stat
import sys
import tempfile
import tokenize
from collections import defaultdict
from pathlib import Path
from typing import Dict, Iterable, Iterator, List, Optional, Sequence, Set, Tuple

import pathspec

# ruff's default ``exclude`` (a name anywhere on a path), and the caches Python and we write
DEFAULT_EXCLUDE = (".bzr", ".direnv", ".eggs", ".git", ".git-rewrite", ".hg", ".ipynb_checkpoints", ".mypy_cache",
                   ".nox", ".pants.d", ".pyenv", ".pytest_cache", ".pytype", ".ruff_cache", ".svn", ".tox", ".venv",
                   ".vscode", "__pypackages__", "_build", "buck-out", "build", "dist", "node_modules",
                   "site-packages", "venv", "__pycache__", ".tensorcopy_cache")

# ``.NAME.py.tensorcopy-PID-XXXXXXXX.tmp``: ours by name, and the writer's pid tells whether it is stale
_TEMPORARY = re.compile(r"\.(?P<name>.+)\.tensorcopy-(?P<pid>\d+)-[a-z0-9_]+\.tmp")
_WRITING: Set[str] = set()  # temporaries of this process not yet renamed, removed if it is killed


class Refused(Exception):
    """A file we will not read or rewrite; the message says why in a few words."""


def read_source(path: Path) -> Tuple[str, str]:
    """The text of a Python file and the encoding it was written in (``utf-8-sig`` for a BOM)."""
    return decode(read_regular_file(path))


def read_regular_file(path: Path) -> bytes:
    """The bytes of a regular file, opened without blocking: a FIFO or device would hang the run."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    descriptor = os.open(path, flags)
    mode = os.fstat(descriptor).st_mode
    if not stat.S_ISREG(mode):
        os.close(descriptor)
        via = ", a symlink that is not followed" if path.is_symlink() else ""
        raise Refused(f"not a regular file ({_kind(mode)}{via})")
    with os.fdopen(descriptor, "rb") as stream:
        return stream.read()


def _kind(mode: int) -> str:
    for test, name in ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device")):
        if test(mode):
            return name
    return "not a plain file"


def decode(raw: bytes) -> Tuple[str, str]:
    """Decode as Python does (PEP 263 cookie, BOM), keeping line endings as they are. Only text
    encodings: ``rot13`` or ``hex`` cookies name codecs that do not make text of bytes."""
    encoding, _lines = tokenize.detect_encoding(io.BytesIO(raw).readline)
    if not getattr(codecs.lookup(encoding), "_is_text_encoding", True):
        raise Refused(f"coding cookie {encoding!r} is not a text encoding")
    return raw.decode(encoding), encoding


def encode_unchanged_elsewhere(raw: bytes, source: str, fixed: str, encoding: str) -> bytes:
    """The bytes to write for ``fixed``, refused unless the encoding gives back exactly what it
    was given: the untouched ``source`` its original bytes, and the written bytes ``fixed``
    (``unicode_escape`` would write a whole file as one line)."""
    try:
        data = fixed.encode(encoding)
        same = source.encode(encoding) == raw and data.decode(encoding) == fixed
    except (UnicodeError, LookupError):
        same = False
    if not same:
        raise Refused(f"encoding {encoding!r} does not give back the same text")
    return data


def write_atomically(path: Path, data: bytes) -> None:
    """Replace ``path``'s bytes in one step, keeping its mode, owner and group. Refused: a path
    through a symlink, a read-only file, a file with hard links (the others would keep the old
    text)."""
    link = next((part for part in (path, *path.parents) if part.is_symlink()), None)
    if link is not None:
        raise Refused(f"{link} is a symlink" if link != path else "it is a symlink")
    info = os.stat(path)
    if not info.st_mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH):
        raise Refused("the file is read-only")
    if info.st_nlink > 1:
        raise Refused(f"the file has {info.st_nlink} hard links; rewriting it would split them")
    handle, temporary = tempfile.mkstemp(dir=str(path.parent), prefix=f".{path.name}.tensorcopy-{os.getpid()}-",
                                         suffix=".tmp")
    _WRITING.add(temporary)
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
        _keep_owner(temporary, info)
        os.chmod(temporary, stat.S_IMODE(info.st_mode))
        os.replace(temporary, path)
    except BaseException:
        _remove(temporary)
        raise
    finally:
        _WRITING.discard(temporary)


def _keep_owner(temporary: str, info: os.stat_result) -> None:
    """The new file belongs to whoever owned the old one, where we may say so (root may)."""
    if hasattr(os, "chown") and (info.st_uid, info.st_gid) != (os.getuid(), os.getgid()):
        try:
            os.chown(temporary, info.st_uid, info.st_gid)
        except PermissionError:
            pass


def _remove(path: str) -> None:
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass


def remove_temporaries_and_exit(signum: int, _frame=None) -> None:
    """Signal handler: a killed run leaves no half-written temporary behind."""
    for temporary in list(_WRITING):
        try:
            os.unlink(temporary)
        except OSError:
            pass
    os._exit(128 + signum)


def remove_stale_temporaries(files: Iterable[Path]) -> None:
    """Remove our temporaries beside ``files`` whose writer no longer runs (a run killed between
    writing a temporary and renaming it); one directory listing per directory."""
    names: Dict[Path, Set[str]] = defaultdict(set)
    for path in files:
        names[path.parent].add(path.name)
    for directory, wanted in names.items():
        try:
            entries = list(os.scandir(directory))
        except OSError:
            continue
        for entry in entries:
            match = _TEMPORARY.fullmatch(entry.name)
            if match and match["name"] in wanted and not process_running(int(match["pid"])):
                if entry.is_file(follow_symlinks=False):
                    _remove(entry.path)


def process_running(pid: int) -> bool:
    if pid == os.getpid() or os.name == "nt":  # Windows' os.kill would end the process
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class Excluder:
    """Which paths are skipped, as ruff decides: the exclude patterns (gitignore syntax, relative
    to the directory walked, or for a path given by name to the working directory) and, with
    ``respect_gitignore``, the ``.gitignore`` files of the repository (those above the directory
    given too, up to the repository's root) and its ``.git/info/exclude``.

    ``exclude`` replaces the default list (``DEFAULT_EXCLUDE``, and a directory holding a
    ``pyvenv.cfg``: a virtualenv whatever its name) as ruff's ``exclude`` does; ``extend``
    adds to it."""

    def __init__(self, exclude: Optional[Sequence[str]] = None, extend: Sequence[str] = (),
                 respect_gitignore: bool = True):
        self.skip_virtualenvs = exclude is None
        patterns = list(DEFAULT_EXCLUDE if exclude is None else exclude) + list(extend)
        self.spec = pathspec.GitIgnoreSpec.from_lines(patterns)
        self.respect_gitignore = respect_gitignore
        self._ignore_files: Dict[str, List[Tuple[str, pathspec.GitIgnoreSpec]]] = {}

    def excluded(self, relative: str, is_directory: bool) -> bool:
        """Whether the exclude patterns skip ``relative`` (a posix path below the walk's root)."""
        return self.spec.match_file(relative + "/" if is_directory else relative)

    def excluded_path(self, path: str) -> bool:
        """Whether a path given by name is excluded: by itself, or because a directory on its
        path is (``build/`` excludes ``build/gen.py``; ruff's force-exclude)."""
        absolute = os.path.abspath(path)
        relative = os.path.relpath(absolute, os.getcwd())
        if relative == ".":
            return False
        shown = absolute.lstrip("/\\") if relative.startswith("..") else relative
        return self.excluded(Path(shown).as_posix(), os.path.isdir(path) and not os.path.islink(path))

    def virtualenv(self, directory: str) -> bool:
        return self.skip_virtualenvs and os.path.exists(os.path.join(directory, "pyvenv.cfg"))

    def gitignored(self, path: str, is_directory: bool, top: str) -> bool:
        """Whether git ignores ``path`` (absolute): the deepest ``.gitignore`` with a verdict
        decides, and within one file the last matching pattern (``!`` re-includes). Outside a
        repository only the ``.gitignore`` files at and below ``top`` (the directory given) count."""
        if not self.respect_gitignore:
            return False
        verdict = None
        for base, spec in self._ignore_files_above(os.path.dirname(path), top):
            relative = Path(os.path.relpath(path, base)).as_posix() + ("/" if is_directory else "")
            include = spec.check_file(relative).include
            if include is not None:
                verdict = include
        return bool(verdict)

    def _ignore_files_above(self, directory: str, top: str) -> List[Tuple[str, "pathspec.GitIgnoreSpec"]]:
        """The ignore files that apply in ``directory``, shallowest first (memoized per directory)."""
        if directory in self._ignore_files:
            return self._ignore_files[directory]
        parent = os.path.dirname(directory)
        if os.path.exists(os.path.join(directory, ".git")):
            specs = _read_ignore_file(os.path.join(directory, ".git", "info", "exclude"), directory)
        elif (directory == top and _repository_root(directory) is None) or parent == directory:
            specs = []
        else:
            specs = list(self._ignore_files_above(parent, top))
        specs = specs + _read_ignore_file(os.path.join(directory, ".gitignore"), directory)
        self._ignore_files[directory] = specs
        return specs


def _repository_root(directory: str) -> Optional[str]:
    for candidate in [directory, *map(str, Path(directory).parents)]:
        if os.path.exists(os.path.join(candidate, ".git")):
            return candidate
    return None


def _read_ignore_file(path: str, base: str) -> List[Tuple[str, "pathspec.GitIgnoreSpec"]]:
    try:
        with open(path, encoding="utf-8", errors="replace") as stream:
            return [(base, pathspec.GitIgnoreSpec.from_lines(stream.read().splitlines()))]
    except OSError:  # none there (or unreadable, as git treats it)
        return []


def python_files(paths: Sequence[str], excluder: Excluder, force_exclude: bool = True) -> Iterator[Path]:
    """Files to process: given files and directories as they are (unless excluded, with
    ``force_exclude``), ``*.py`` and ``*.ipynb`` under given directories, skipping what the
    excluder skips, symlinks and what is not a regular file. A named symlink to a directory is
    not walked (reading it says why)."""
    for given in paths:
        if force_exclude and excluder.excluded_path(given):
            continue
        root = Path(given)
        if root.is_symlink() or not root.is_dir():
            yield root
            continue
        yield from _walk(root, Path("."), excluder, os.path.abspath(given))


def _walk(root: Path, relative: Path, excluder: Excluder, top: str) -> Iterator[Path]:
    directory = root / relative
    try:
        entries: List[os.DirEntry] = sorted(os.scandir(directory), key=lambda entry: entry.name)
    except OSError:
        return
    for entry in entries:
        child = relative / entry.name
        if entry.is_symlink():
            continue
        is_directory = entry.is_dir()
        if not is_directory and not (entry.name.endswith((".py", ".ipynb")) and entry.is_file(follow_symlinks=False)):
            continue
        if excluder.excluded(child.as_posix(), is_directory) or excluder.gitignored(
                os.path.join(top, *child.parts), is_directory, top):
            continue
        if not is_directory:
            yield root / child
        elif not excluder.virtualenv(entry.path):
            yield from _walk(root, child, excluder, top)


def silence_stdout() -> None:
    """The reader of stdout went away (``| head``): stop writing, as unix tools do, and keep the
    interpreter from failing again when it flushes stdout at exit."""
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
