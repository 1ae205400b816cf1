"""``tensorcopy-fix``: the codemod users run from a shell, pre-commit or an editor.

Exit codes (ruff's): 0 nothing left to report (every finding fixed counts), 1 findings left
(``--diff``: files would change; ``--exit-non-zero-on-fix``: files changed too), 2 usage or
configuration error, or a file that could not be read, parsed or written.
"""

import argparse
import difflib
import functools
import os
import re
import signal
import sys
import threading
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Iterable, Iterator, List, Optional, Sequence, TextIO, Tuple

import pathspec

from flake8_tensorcopy import __version__, output
from flake8_tensorcopy.knowledge.conventions import configure as configure_conventions
from flake8_tensorcopy.cache import DIRECTORY_NAME, Cache
from flake8_tensorcopy.codes import selects
from flake8_tensorcopy.config import Config, load_config, unknown_codes
from flake8_tensorcopy.engine import SourceError, lint_source
from flake8_tensorcopy.files import (Excluder, decode, encode_unchanged_elsewhere, python_files, read_regular_file,
                                     remove_stale_temporaries, remove_temporaries_and_exit, silence_stdout,
                                     write_atomically)
from flake8_tensorcopy.fixer import fix_source, source_lines, suppressed
from flake8_tensorcopy.output import FORMATS, applicable, finding_row, row_order
from flake8_tensorcopy.rules import ALL_RULES, DEFAULT_RULES, RULES_BY_CODE
from flake8_tensorcopy.workers import map_in_workers

MESSAGE_LIMIT = 160  # characters of an exception's message in a file's one-line error
# a file-level exemption on a line of its own: ``# ruff: noqa`` (every code) or ``# flake8: noqa: TEN2``
FILE_NOQA = re.compile(r"^[ \t]*#[ \t]*(?:flake8|ruff)[ \t]*[:=][ \t]*noqa"
                       r"(?::[ \t]*(?P<codes>[A-Z]+[0-9]*(?:[ \t]*,?[ \t]*[A-Z]+[0-9]*)*))?[ \t]*$",
                       re.IGNORECASE | re.MULTILINE)


@dataclass
class Options:
    rules: tuple
    unsafe: bool
    mode: str  # "fix", "check", "diff" or "report"
    cache: Optional[Cache] = None
    # (pattern matcher, codes): ``per-file-ignores``, matched against paths relative to ``root``
    per_file_ignores: tuple = ()
    root: Optional[Path] = None


@dataclass
class FileResult:
    """What happened to one file: small plain data (no source text), so a worker can send it
    back and the run can keep one per file until the summary.

    ``remaining``: the findings of the file as it is on disk after the run (fix mode: of the
    fixed text; other modes: of the text as it is); ``left``: how many findings fixing leaves.
    """

    path: str
    changed: bool = False  # written, or (--check/--diff) would be
    applied: List[dict] = field(default_factory=list)
    remaining: List[dict] = field(default_factory=list)
    left: int = 0
    error: Optional[str] = None
    unstable: bool = False
    diff: List[str] = field(default_factory=list)  # --diff only, dropped once printed


def one_line(error: BaseException) -> str:
    """An exception as a short single line: a message may be a multi-kilobyte node dump."""
    text = " ".join(str(error).split()) or type(error).__name__
    return text if len(text) <= MESSAGE_LIMIT else text[: MESSAGE_LIMIT - 3] + "..."


def exempted_rules(source: str, rules: tuple) -> tuple:
    """The rules left once the file's own ``# ruff: noqa`` / ``# flake8: noqa`` comments (every
    code, or those listed) are taken out, as ruff reads them."""
    for match in FILE_NOQA.finditer(source):
        if match["codes"] is None:
            return ()
        codes = [code.upper() for code in re.split(r"[\s,]+", match["codes"]) if code]
        rules = tuple(rule for rule in rules if not rule.code.startswith(tuple(codes)))
    return rules


def _report_rows(source: str, options: Options) -> List[dict]:
    lines = source_lines(source)
    findings = [f for f in lint_source(source, rules=options.rules) if not suppressed(f, lines)]
    return [finding_row(finding, options.unsafe, lines) for finding in findings]


def process_source(path: str, source: str, options: Options) -> Tuple[FileResult, str]:
    """Lint, and unless only reporting fix, one source text: the result and the fixed text (the
    source itself after an error). Never raises: whatever goes wrong is the result's error.

    The cache answers for a text only when nothing in it would be fixed: fixing always runs."""
    result = FileResult(path)
    rules = exempted_rules(source, options.rules)
    if rules != options.rules:
        options = replace(options, rules=rules, cache=None)  # the cache knows the run's rules only
    try:
        cached = options.cache.get(source) if options.cache else None
        if cached is not None and (options.mode == "report" or not any(map(applicable, cached))):
            result.remaining, result.left = cached, len(cached)
            return result, source
        if options.mode == "report":
            result.remaining = _report_rows(source, options)
            result.left = len(result.remaining)
            _remember(options, source, result.remaining)
            return result, source
        fixed = fix_source(source, options.rules, unsafe=options.unsafe)
        result.changed = fixed.source != source
        result.applied = [finding_row(finding, options.unsafe) for finding in fixed.applied]
        lines_after = source_lines(fixed.source)
        rows_after = [finding_row(finding, options.unsafe, lines_after) for finding in fixed.remaining]
        result.left = len(rows_after)
        result.unstable = fixed.unstable
        if not fixed.unstable:
            _remember(options, fixed.source, rows_after)
        if options.mode == "fix" or not fixed.applied:
            result.remaining = rows_after
        else:  # --check/--diff report the text as it stays
            result.remaining = _report_rows(source, options)
            _remember(options, source, result.remaining)
        if options.mode == "diff" and result.changed:
            result.diff = unified_diff(path, source, fixed.source)
        return result, fixed.source
    except SourceError as error:
        message = f"cannot parse: {one_line(error)}"
    except RecursionError:
        message = "too deeply nested to analyse"
    except MemoryError:
        message = "out of memory while analysing it"
    except Exception as error:  # a bug of ours must not cost the other files
        message = f"internal error ({type(error).__name__}: {one_line(error)}), file left as it was"
    return FileResult(path, error=message), source


def _remember(options: Options, source: str, rows: List[dict]) -> None:
    if options.cache is not None:
        options.cache.put(source, rows)


def process_file(path: str, options: Options) -> FileResult:
    """Read, fix and (in fix mode) write one file. Never raises: a crash is this file's error."""
    options = _options_for_path(path, options)
    if path.endswith(".ipynb"):
        from flake8_tensorcopy.notebooks import process_notebook  # imports this module

        return process_notebook(path, options)
    try:
        raw = read_regular_file(Path(path))
        source, encoding = decode(raw)
    except Exception as error:
        return FileResult(path, error=f"cannot read: {one_line(error)}")
    result, fixed = process_source(path, source, options)
    if options.mode == "fix" and result.changed:
        try:
            write_atomically(Path(path), encode_unchanged_elsewhere(raw, source, fixed, encoding))
        except Exception as error:
            # nothing was fixed: what would have been is left, and the summary says so
            result.remaining = result.applied + result.remaining
            result.applied, result.changed, result.left = [], False, len(result.remaining)
            result.error = f"cannot write: {one_line(error)}"
    return result


def _options_for_path(path: str, options: Options) -> Options:
    """The options with the rules ``per-file-ignores`` turns off for ``path`` taken out."""
    if not options.per_file_ignores:
        return options
    relative = Path(os.path.relpath(os.path.abspath(path), options.root or os.getcwd())).as_posix()
    ignored = tuple(code for spec, codes in options.per_file_ignores if spec.match_file(relative) for code in codes)
    if not ignored:
        return options
    rules = tuple(rule for rule in options.rules if not rule.code.startswith(ignored))
    return replace(options, rules=rules, cache=None)  # the cache knows the run's rules only


def _selected_rules(select: Sequence[str], ignore: Sequence[str]) -> tuple:
    """The rules to run. Opinionated ones (TEN9xx) run only when a selection names them
    (``TEN9``, ``TEN901``), never by default nor through ``TEN``: the flake8 face decides the same."""
    return tuple(
        rule
        for rule in (ALL_RULES if select else DEFAULT_RULES)
        if (not select or selects(select, rule.code))
        and not any(rule.code.startswith(prefix) for prefix in ignore)
    )


def _codes(value) -> List[str]:
    if value is None:
        return []
    if isinstance(value, str):
        value = value.split(",")
    return [code.strip().upper() for code in value if code.strip()]


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tensorcopy-fix",
        description="Fix PyTorch tensor copying, conversion and aliasing bugs (flake8-tensorcopy's codemod).",
        epilog="Exit codes: 0 clean (or every finding fixed), 1 findings left (--check/--diff: files would "
        "change), 2 usage, configuration or I/O error.",
    )
    parser.add_argument("paths", nargs="*", help="files and directories; - reads stdin and writes stdout")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--check", action="store_true",
                      help="write nothing; list what would be fixed and what is left; exit 1 when findings remain")
    mode.add_argument("--diff", action="store_true", help="print a unified diff; write nothing; "
                      "exit 1 when a file would change")
    mode.add_argument("--no-fix", action="store_true", help="only report findings (exit 1 when there are some)")
    parser.add_argument("--unsafe-fixes", action="store_true", default=None, help="also apply unsafe fixes")
    parser.add_argument("--select", help="codes or prefixes to run, comma separated (default: all but TEN9)")
    parser.add_argument("--extend-select", help="codes or prefixes to run besides those selected")
    parser.add_argument("--ignore", help="codes or prefixes to skip, comma separated")
    parser.add_argument("--extend-ignore", help="codes or prefixes to skip besides those ignored")
    parser.add_argument("--exclude", action="append", help="gitignore-style pattern to skip; replaces the "
                        "default list (.venv, venv, site-packages, build, dist, ...) and the configured one")
    parser.add_argument("--extend-exclude", action="append", default=[],
                        help="gitignore-style pattern to skip besides the default or configured ones")
    parser.add_argument("--respect-gitignore", action=argparse.BooleanOptionalAction, default=None,
                        help="skip what .gitignore files ignore (default: on)")
    parser.add_argument("--force-exclude", action=argparse.BooleanOptionalAction, default=True,
                        help="apply excludes to files given by name too (default: on)")
    parser.add_argument("--stdin-filename", metavar="PATH",
                        help="the path of the file read from stdin (its configuration, excludes, messages)")
    parser.add_argument("--show-fixes", action="store_true", help="list every fix applied (or that would be)")
    parser.add_argument("--statistics", action="store_true",
                        help="only count findings per code (writes nothing), instead of listing them")
    parser.add_argument("--exit-zero", action="store_true", help="exit 0 even when findings are left")
    parser.add_argument("--exit-non-zero-on-fix", action="store_true", help="exit 1 when files were changed")
    parser.add_argument("--exit-non-zero-on-findings", action="store_true",
                        help="with --diff: exit 1 also when findings no fix removes are left (--check always does)")
    parser.add_argument("--no-cache", action="store_true", help="neither read nor write the cache")
    parser.add_argument("--cache-dir", metavar="DIR", help=f"where the cache lives (default: {DIRECTORY_NAME} "
                        "beside pyproject.toml, or in the working directory)")
    parser.add_argument("-j", "--jobs", type=int, default=1, help="worker processes (default 1)")
    parser.add_argument("--output-format", choices=FORMATS, default="text")
    parser.add_argument("--explain", metavar="CODE", help="print a rule's documentation (a prefix such as TEN2: "
                        "list its family; 'all': every rule)")
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress bar and no summary line")
    parser.add_argument("--version", action="version", version=f"tensorcopy-fix {__version__}")
    return parser


def main(argv: Optional[Sequence[str]] = None) -> int:
    """The console script. A reader that stops early (``| head``) ends the run quietly."""
    try:
        status = _main(argv)
        sys.stdout.flush()
    except BrokenPipeError:
        silence_stdout()
        return 1
    return status


def _main(argv: Optional[Sequence[str]]) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.explain:
        return _explain(args.explain, args.output_format)
    stdin = args.paths == ["-"] or (args.stdin_filename is not None and not args.paths)
    if not args.paths and not stdin:
        parser.print_usage(sys.stderr)
        print("tensorcopy-fix: error: give files or directories to fix (or - for stdin)", file=sys.stderr)
        return 2
    if args.stdin_filename is not None and not stdin:
        print("tensorcopy-fix: error: --stdin-filename names what - reads; give no other path", file=sys.stderr)
        return 2
    # --statistics only counts, as ruff's does: it never writes
    mode = ("check" if args.check else "diff" if args.diff else "report" if args.no_fix or args.statistics
            else "fix")
    try:
        config = load_config(Path(args.stdin_filename).parent if args.stdin_filename else Path.cwd())
        options = options_for(config, mode, args.select, args.ignore, args.unsafe_fixes,
                              args.extend_select, args.extend_ignore)
    except ValueError as error:  # ConfigError is one
        if stdin and mode == "fix":
            _echo_stdin()  # an editor replacing its buffer with our output loses nothing
        print(f"tensorcopy-fix: {error}", file=sys.stderr)
        return 2
    excluder = Excluder(args.exclude if args.exclude is not None else config.exclude,
                        config.extend_exclude + args.extend_exclude,
                        config.respect_gitignore if args.respect_gitignore is None else args.respect_gitignore)
    if stdin:
        return _run_stdin(options, args, excluder)
    if "-" in args.paths:
        print("tensorcopy-fix: error: - (stdin) cannot be mixed with paths", file=sys.stderr)
        return 2
    # a dangling symlink is one error among the files; a name that is nowhere is a typo
    missing = [path for path in args.paths if not os.path.lexists(path)]
    if missing:
        print(f"tensorcopy-fix: no such file or directory: {', '.join(missing)}", file=sys.stderr)
        return 2
    if not args.no_cache:
        options.cache = _open_cache(args, config, options)
    # once each (a file named and also found in a named directory must not be fixed twice), in
    # the order findings are printed
    paths = sorted(dict.fromkeys(str(path) for path in python_files(args.paths, excluder, args.force_exclude)))
    if not paths:
        _warn_nothing_to_do(args.paths, excluder, args.force_exclude)
    if mode == "fix":
        remove_stale_temporaries(Path(path) for path in paths)
    with _removing_temporaries_when_killed():
        results = _run_files(paths, options, max(1, args.jobs), show_progress=not args.quiet and sys.stderr.isatty())
        return _report(results, options, args)


def _warn_nothing_to_do(paths: Sequence[str], excluder: Excluder, force_exclude: bool) -> None:
    if force_exclude and all(excluder.excluded_path(path) for path in paths):
        print("tensorcopy-fix: warning: every path given is excluded (see exclude, extend-exclude; "
              "--no-force-exclude processes them anyway)", file=sys.stderr)
    else:
        print("tensorcopy-fix: warning: no Python files or notebooks found under the paths given", file=sys.stderr)


def _explain(code: str, output_format: str) -> int:
    """A rule's documentation; a prefix (``TEN2``) or ``all`` lists the rules it names."""
    rule = RULES_BY_CODE.get(code.upper())
    if rule is not None:
        print(f"{rule.code}: {rule.summary}\n\n{rule.documentation()}")
        return 0
    prefix = "" if code.lower() == "all" else code.upper()
    if unknown_codes([prefix]):
        print(f"tensorcopy-fix: unknown rule {code}", file=sys.stderr)
        return 2
    output.write_rules(output_format, sys.stdout, [rule for rule in ALL_RULES if rule.code.startswith(prefix)])
    return 0


def options_for(config: Config, mode: str, select=None, ignore=None, unsafe_fixes=None, extend_select=None,
                extend_ignore=None) -> "Options":
    """Options from ``[tool.tensorcopy]`` and the flags given (``--select`` replaces the
    configured list, the others add to it), its naming conventions put in force; ValueError
    says what is wrong."""
    configure_conventions(config.conventions)
    flags = {"--select": _codes(select), "--extend-select": _codes(extend_select), "--ignore": _codes(ignore),
             "--extend-ignore": _codes(extend_ignore)}
    for flag, codes in flags.items():
        unknown = unknown_codes(codes)
        if unknown:
            raise ValueError(f"{flag}: unknown code or prefix: {', '.join(unknown)}")
    select = flags["--select"] or _codes(config.select)
    extend_select = _codes(config.extend_select) + flags["--extend-select"]
    if extend_select:  # added to what is selected, the default set when nothing is
        select = (select or [rule.code for rule in DEFAULT_RULES]) + extend_select
    ignore = _codes(config.ignore) + _codes(config.extend_ignore) + flags["--ignore"] + flags["--extend-ignore"]
    unsafe = unsafe_fixes if unsafe_fixes is not None else config.unsafe_fixes
    per_file_ignores = tuple((pathspec.GitIgnoreSpec.from_lines([pattern]), tuple(_codes(codes)))
                             for pattern, codes in config.per_file_ignores.items())
    return Options(_selected_rules(select, ignore), unsafe, mode, per_file_ignores=per_file_ignores,
                   root=config.root)


def _open_cache(args, config: Config, options: Options) -> Optional[Cache]:
    """The cache for these settings, its directory created; None (with a warning) when it cannot be."""
    directory = Path(args.cache_dir) if args.cache_dir else (config.root or Path.cwd()) / DIRECTORY_NAME
    conventions = sorted((key, tuple(names)) for key, names in config.conventions.items())
    cache = Cache(directory, [",".join(rule.code for rule in options.rules), f"unsafe={options.unsafe}",
                              f"conventions={conventions}"])
    try:
        cache.create()
    except OSError as error:
        print(f"tensorcopy-fix: warning: no cache: cannot create {directory}: {error.strerror or error}",
              file=sys.stderr)
        return None
    return cache


def _echo_stdin() -> None:
    try:
        sys.stdout.buffer.write(sys.stdin.buffer.read())
    except (AttributeError, OSError, ValueError):  # no stdin at all: nothing to give back
        pass


def _run_stdin(options: Options, args, excluder: Excluder) -> int:
    """stdin to stdout for editors. Whatever happens, in fix mode stdout holds the fixed source or
    the input unchanged, and every failure exits 2 with one line on stderr; the findings left
    go to stderr. ``--stdin-filename`` names the text (an excluded one comes back unchanged; an
    ``.ipynb`` one is a notebook, and comes back as its JSON in its own layout)."""
    path = args.stdin_filename or "-"
    if args.stdin_filename and args.force_exclude and excluder.excluded_path(path):
        if options.mode == "fix":
            _echo_stdin()
        return 0
    raw = b""
    try:
        if sys.stdin is None:
            raise OSError("stdin is closed")
        raw = sys.stdin.buffer.read()
        notebook = path.endswith(".ipynb")
        if not notebook:  # a notebook is JSON: its module is read from it below
            source, encoding = decode(raw)
    except Exception as error:
        result, fixed_output = FileResult(path, error=f"cannot read: {one_line(error)}"), raw
    else:
        if args.stdin_filename:
            options = _options_for_path(path, options)
        if notebook:
            from flake8_tensorcopy.notebooks import process_notebook_bytes  # imports this module

            result, fixed_output = process_notebook_bytes(path, raw, options)
        else:
            result, fixed_output = _fix_stdin_source(path, raw, source, encoding, options)
    if options.mode != "fix":
        return _report([result], options, args)
    sys.stdout.buffer.write(fixed_output)
    sys.stdout.flush()
    if result.error is not None:
        print(f"{path}: {result.error}", file=sys.stderr)
        return 2
    return _report([result], options, args, findings_stream=sys.stderr)


def _fix_stdin_source(path: str, raw: bytes, source: str, encoding: str, options: Options) -> Tuple[FileResult, bytes]:
    """A Python text read from stdin: its result, and the bytes to give back (``raw`` unless fixed)."""
    result, fixed = process_source(path, source, options)
    if result.error is None and options.mode == "fix":
        try:
            return result, encode_unchanged_elsewhere(raw, source, fixed, encoding)
        except Exception as error:
            result.error = f"cannot write: {one_line(error)}"
    return result, raw


class _removing_temporaries_when_killed:
    """While files are written, SIGTERM/SIGINT remove the temporary being written, then exit
    (workers do the same, and die with this process)."""

    def __enter__(self):
        self.saved = {}
        if threading.current_thread() is threading.main_thread():
            for signum in (signal.SIGTERM, signal.SIGINT):
                self.saved[signum] = signal.signal(signum, remove_temporaries_and_exit)

    def __exit__(self, *exc_info):
        for signum, handler in self.saved.items():
            signal.signal(signum, handler)


def _run_files(paths: List[str], options: Options, jobs: int, show_progress: bool) -> Iterator[FileResult]:
    """Each file's result as soon as it (and every file before it) is done."""
    progress = _Progress(len(paths)) if show_progress and len(paths) > 1 else None
    work = functools.partial(process_file, options=options)
    if jobs > 1 and len(paths) > 1:
        results: Iterable[FileResult] = map_in_workers(work, paths, jobs, _lost_with_its_worker)
    else:
        results = map(work, paths)
    for result in results:
        if progress:
            progress.step()
        yield result
    if progress:
        progress.done()


def _lost_with_its_worker(path: str) -> FileResult:
    return FileResult(path, error="the worker process died while processing it; file left as it was")


class _Progress:
    """A one-line progress bar on stderr (only when stderr is a terminal)."""

    def __init__(self, total: int):
        self.total = total
        self.count = 0

    def step(self) -> None:
        self.count += 1
        filled = 30 * self.count // self.total
        sys.stderr.write(f"\r[{'#' * filled}{'.' * (30 - filled)}] {self.count}/{self.total} files")
        sys.stderr.flush()

    def done(self) -> None:
        sys.stderr.write("\r" + " " * 60 + "\r")


def _report(results: Iterable[FileResult], options: Options, args, findings_stream: Optional[TextIO] = None) -> int:
    """Print each file's outcome as it arrives (text, github); keep only its small rows for the
    summary, the JSON or SARIF document and the statistics, printed at the end."""
    stream = findings_stream or sys.stdout
    streamed = args.output_format in output.STREAMED and not args.statistics
    # --show-fixes beside the findings on stdout, unless stdout carries a document or the source
    fixes_stream = stream if streamed and findings_stream is None else sys.stderr
    done: List[FileResult] = []
    for result in results:
        result.remaining.sort(key=row_order)
        result.applied.sort(key=row_order)
        _report_file(result, options, args, stream if streamed else None, fixes_stream)
        done.append(result)
    if args.statistics:
        output.write_statistics(done, options.mode, args.output_format, stream)
    elif not streamed:
        output.write_document(done, options.mode, args.output_format, stream)
    if not args.quiet:
        print(_summary(done, options), file=sys.stderr)
    if any(result.error is not None for result in done):
        return 2
    return 0 if args.exit_zero else int(_failed(done, options.mode, args))


def _failed(results: List[FileResult], mode: str, args) -> bool:
    """ruff's conventions: fixing everything passes; --check fails while the files as they are
    have findings, fixable or not (a CI gate); --diff asks "would a file change?"."""
    changed = any(result.changed for result in results)
    if mode == "check":
        return any(result.remaining for result in results)
    left = any(result.left for result in results)
    if mode == "diff":
        return changed or (args.exit_non_zero_on_findings and left)
    return left or (args.exit_non_zero_on_fix and changed)


def _report_file(result: FileResult, options: Options, args, stream: Optional[TextIO], fixes_stream: TextIO) -> None:
    if result.error is not None:
        print(f"{result.path}: {result.error}", file=sys.stderr)
    if stream is not None:
        output.write_file(result, options.mode, args.output_format, stream)
        result.diff = []
    if args.show_fixes:
        verb = "fixed" if options.mode == "fix" else "would fix"
        for row in result.applied:
            print(f"{output.location(result.path, row)}: {verb} {row['code']}", file=fixes_stream)
    if result.unstable:
        print(f"{result.path}: fixes did not settle after several passes; some are left", file=sys.stderr)


def unified_diff(path: str, source: str, fixed: str) -> List[str]:
    """A unified diff ``patch`` and ``git apply`` accept: lines split where they split them, at
    ``\\n`` only (a lone CR or a form feed is inside a line), a last line without newline marked."""
    lines = difflib.unified_diff(
        _lines_at_newlines(source),
        _lines_at_newlines(fixed),
        fromfile=f"a/{path}",
        tofile=f"b/{path}",
    )
    return [line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines]


def _lines_at_newlines(text: str) -> List[str]:
    lines = text.split("\n")
    return [line + "\n" for line in lines[:-1]] + ([lines[-1]] if lines[-1] else [])


def _summary(results: List[FileResult], options: Options) -> str:
    """One line; a file that could not be written counts as an error, its findings as left."""
    line = output.summary(results, options.mode)
    errors = sum(1 for result in results if result.error is not None)
    if errors:
        line += f"; {output.count(errors, 'file')} with errors"
    return line
