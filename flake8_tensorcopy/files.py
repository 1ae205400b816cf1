"""Reading, finding and writing the files ``tensorcopy-fix`` is given, without losing anything.

Only regular files are read. Encoding (coding cookie, BOM), line endings, file mode, owner and
group survive a rewrite; a write goes to a temporary file beside the original (flushed to disk)
and replaces it in one step. Never written: a path through a symlink, a read-only file, a file
with hard links, a text whose encoding would not give back the same bytes.
"""

import codecs
import fnmatch
import io
import os
import re
import stat
import sys
import tempfile
import tokenize
from collections import defaultdict
from pathlib import Path
from typing import Dict, Iterable, Iterator, List, Sequence, Set, Tuple

_SKIPPED_DIRECTORIES = frozenset({".git", ".hg", ".svn", "__pycache__", ".tox", ".nox", ".mypy_cache",
                                  ".pytest_cache", ".ruff_cache", ".tensorcopy_cache", "node_modules", ".eggs",
                                  ".ipynb_checkpoints"})

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
    ``*.py`` and ``*.ipynb`` under given directories, skipping VCS/cache/virtualenv folders, .gitignore'd paths,
    symlinks and what is not a regular file. A named symlink to a directory is not walked
    (reading it says why)."""
    for given in paths:
        root = Path(given)
        if root.is_symlink() or not root.is_dir():
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
        elif (entry.name.endswith((".py", ".ipynb")) and entry.is_file(follow_symlinks=False)
              and not excluder.excluded(child.as_posix(), False)):
            yield root / child


def silence_stdout() -> None:
    """The reader of stdout went away (``| head``): stop writing, as unix tools do, and keep the
    interpreter from failing again when it flushes stdout at exit."""
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
