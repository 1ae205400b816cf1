"""``tensorcopy-fix``: the codemod users run from a shell, pre-commit or an editor.

Exit codes (ruff's): 0 nothing left to report (every finding fixed counts), 1 findings left
(``--check``/``--diff``: files would change; ``--exit-non-zero-on-fix``: files changed too),
2 usage or configuration error, or a file that could not be read, parsed or written.
"""

import argparse
import os
import sys
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import List, Optional, Sequence, TextIO

from flake8_tensorcopy import __version__, output
from flake8_tensorcopy.cache import DIRECTORY_NAME, Cache
from flake8_tensorcopy.config import Config, ConfigError, load_config
from flake8_tensorcopy.engine import SourceError, lint_source
from flake8_tensorcopy.files import Excluder, decode, python_files, read_source, write_atomically
from flake8_tensorcopy.fixer import fix_source, source_lines, suppressed
from flake8_tensorcopy.output import FORMATS, applicable, finding_row
from flake8_tensorcopy.rules import ALL_RULES, RULES_BY_CODE


@dataclass
class Options:
    rules: tuple
    unsafe: bool
    mode: str  # "fix", "check", "diff" or "report"
    cache: Optional[Cache] = None


@dataclass
class FileResult:
    """What happened to one file; plain data, so a worker process can send it back.

    ``remaining``: the findings of the file as it is on disk after the run (fix mode: of the
    fixed text; other modes: of the text as it is); ``left``: how many findings fixing leaves.
    """

    path: str
    source: str = ""
    fixed: str = ""
    applied: List[dict] = field(default_factory=list)
    remaining: List[dict] = field(default_factory=list)
    left: int = 0
    error: Optional[str] = None
    written: bool = False
    unstable: bool = False

    @property
    def changed(self) -> bool:
        return self.fixed != self.source


def _report_rows(source: str, options: Options) -> List[dict]:
    lines = source_lines(source)
    findings = [f for f in lint_source(source, rules=options.rules) if not suppressed(f, lines)]
    return [finding_row(finding, options.unsafe, lines) for finding in findings]


def process_source(path: str, source: str, options: Options) -> FileResult:
    """Lint, and unless only reporting fix, one source text (nothing is written here).

    The cache answers for a text only when nothing in it would be fixed: fixing always runs."""
    result = FileResult(path, source, source)
    try:
        cached = options.cache.get(source) if options.cache else None
        if cached is not None and (options.mode == "report" or not any(map(applicable, cached))):
            result.remaining = cached
            result.left = len(cached)
            return result
        if options.mode == "report":
            result.remaining = _report_rows(source, options)
            result.left = len(result.remaining)
            _remember(options, source, result.remaining)
            return result
        fixed = fix_source(source, options.rules, unsafe=options.unsafe)
        result.fixed = fixed.source
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
    except SourceError as error:
        result.error = f"cannot parse: {error}"
    except RecursionError:
        result.error = "too deeply nested to analyse"
    if result.error is not None:
        result.fixed = source
    return result


def _remember(options: Options, source: str, rows: List[dict]) -> None:
    if options.cache is not None:
        options.cache.put(source, rows)


def process_file(path: str, options: Options) -> FileResult:
    """Read, fix and (in fix mode) write one file. Never raises: a crash is this file's error."""
    try:
        source, encoding = read_source(Path(path))
    except (OSError, UnicodeDecodeError, SyntaxError) as error:
        return FileResult(path, error=f"cannot read: {error}")
    try:
        result = process_source(path, source, options)
        if options.mode == "fix" and result.changed and result.error is None:
            write_atomically(Path(path), result.fixed, encoding)
            result.written = True
    except OSError as error:
        result = FileResult(path, source, source, error=f"cannot write: {error}")
    except Exception as error:  # a bug of ours must not cost the other files
        result = FileResult(path, source, source, error=f"internal error, file left as it was: {error!r}")
    return result


def _selected_rules(select: Sequence[str], ignore: Sequence[str]) -> tuple:
    return tuple(
        rule
        for rule in ALL_RULES
        if (not select or any(rule.code.startswith(prefix) for prefix in select))
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
    mode.add_argument("--check", action="store_true", help="write nothing; exit 1 when a file would change")
    mode.add_argument("--diff", action="store_true", help="print a unified diff; write nothing")
    mode.add_argument("--no-fix", action="store_true", help="only report findings (exit 1 when there are some)")
    parser.add_argument("--unsafe-fixes", action="store_true", default=None, help="also apply unsafe fixes")
    parser.add_argument("--select", help="codes or prefixes to run, comma separated (default: all)")
    parser.add_argument("--ignore", help="codes or prefixes to skip, comma separated")
    parser.add_argument("--exclude", action="append", default=[], help="gitignore-style pattern to skip")
    parser.add_argument("--force-exclude", action=argparse.BooleanOptionalAction, default=True,
                        help="apply excludes to files given by name too (default: on)")
    parser.add_argument("--stdin-filename", metavar="PATH",
                        help="the path of the file read from stdin (its configuration, excludes, messages)")
    parser.add_argument("--show-fixes", action="store_true", help="list every fix applied")
    parser.add_argument("--statistics", action="store_true", help="count findings per code instead of listing them")
    parser.add_argument("--exit-zero", action="store_true", help="exit 0 even when findings are left")
    parser.add_argument("--exit-non-zero-on-fix", action="store_true", help="exit 1 when files were changed")
    parser.add_argument("--exit-non-zero-on-findings", action="store_true",
                        help="with --check/--diff: exit 1 also when findings no fix removes are left")
    parser.add_argument("--no-cache", action="store_true", help="neither read nor write the cache")
    parser.add_argument("--cache-dir", metavar="DIR", help=f"where the cache lives (default: {DIRECTORY_NAME} "
                        "beside pyproject.toml, or in the working directory)")
    parser.add_argument("-j", "--jobs", type=int, default=1, help="worker processes (default 1)")
    parser.add_argument("--output-format", choices=FORMATS, default="text")
    parser.add_argument("--explain", metavar="CODE", help="print a rule's documentation ('all': list every rule)")
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress bar and no summary line")
    parser.add_argument("--version", action="version", version=f"tensorcopy-fix {__version__}")
    return parser


def main(argv: Optional[Sequence[str]] = None) -> int:
    """The console script. A reader that stops early (``| head``) ends the run quietly."""
    try:
        status = _main(argv)
        sys.stdout.flush()
    except BrokenPipeError:
        # the interpreter's last flush of stdout must not raise again
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
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
    try:
        config = load_config(Path(args.stdin_filename).parent if args.stdin_filename else Path.cwd())
    except ConfigError as error:
        print(f"tensorcopy-fix: {error}", file=sys.stderr)
        return 2
    select = _codes(args.select) or _codes(config.select)
    ignore = _codes(args.ignore) + _codes(config.ignore)
    unknown = [code for code in select + ignore if not any(rule.code.startswith(code) for rule in ALL_RULES)]
    if unknown:
        print(f"tensorcopy-fix: unknown code or prefix: {', '.join(unknown)}", file=sys.stderr)
        return 2
    unsafe = args.unsafe_fixes if args.unsafe_fixes is not None else config.unsafe_fixes
    mode = "check" if args.check else "diff" if args.diff else "report" if args.no_fix else "fix"
    options = Options(_selected_rules(select, ignore), unsafe, mode)
    excluder = Excluder(list(args.exclude) + config.exclude)
    if stdin:
        return _run_stdin(options, args, excluder)
    if "-" in args.paths:
        print("tensorcopy-fix: error: - (stdin) cannot be mixed with paths", file=sys.stderr)
        return 2
    missing = [path for path in args.paths if not os.path.exists(path)]
    if missing:
        print(f"tensorcopy-fix: no such file or directory: {', '.join(missing)}", file=sys.stderr)
        return 2
    if not args.no_cache:
        options.cache = _open_cache(args, config, options)
    # once each: a file named and also found in a named directory must not be fixed twice
    paths = list(dict.fromkeys(str(path) for path in python_files(args.paths, excluder, args.force_exclude)))
    results = _run_files(paths, options, max(1, args.jobs), show_progress=not args.quiet and sys.stderr.isatty())
    return _report(results, options, args)


def _explain(code: str, output_format: str) -> int:
    if code.lower() == "all":
        output.write_rules(output_format, sys.stdout)
        return 0
    rule = RULES_BY_CODE.get(code.upper())
    if rule is None:
        print(f"tensorcopy-fix: unknown rule {code}", file=sys.stderr)
        return 2
    print(f"{rule.code}: {rule.summary}\n\n{rule.documentation()}")
    return 0


def _open_cache(args, config: Config, options: Options) -> Optional[Cache]:
    """The cache for these settings, its directory created; None (with a warning) when it cannot be."""
    directory = Path(args.cache_dir) if args.cache_dir else (config.root or Path.cwd()) / DIRECTORY_NAME
    cache = Cache(directory, [",".join(rule.code for rule in options.rules), f"unsafe={options.unsafe}"])
    try:
        cache.create()
    except OSError as error:
        print(f"tensorcopy-fix: warning: no cache: cannot create {directory}: {error.strerror or error}",
              file=sys.stderr)
        return None
    return cache


def _run_stdin(options: Options, args, excluder: Excluder) -> int:
    """stdin in; in fix mode the fixed source on stdout and the findings left on stderr."""
    raw = sys.stdin.buffer.read()
    path = args.stdin_filename or "-"
    if args.stdin_filename and args.force_exclude and excluder.excluded_path(path):
        if options.mode == "fix":
            sys.stdout.buffer.write(raw)  # excluded: the editor's buffer comes back as it was
        return 0
    try:
        source, encoding = decode(raw)
    except (SyntaxError, UnicodeDecodeError) as error:
        print(f"tensorcopy-fix: {path}: cannot read: {error}", file=sys.stderr)
        return 2
    result = process_source(path, source, options)
    if result.error is not None:
        if options.mode == "fix":
            sys.stdout.buffer.write(raw)  # an editor replacing its buffer with our output loses nothing
        print(f"{path}: {result.error}", file=sys.stderr)
        return 2
    if options.mode == "fix":
        # bytes in the input's encoding (cookie, BOM): stdout's own encoding would corrupt the file
        sys.stdout.buffer.write(result.fixed.encode(encoding))
        sys.stdout.flush()
        return _report([result], options, args, findings_stream=sys.stderr)
    return _report([result], options, args)


def _run_files(paths: List[str], options: Options, jobs: int, show_progress: bool) -> List[FileResult]:
    results: List[FileResult] = []
    progress = _Progress(len(paths)) if show_progress and len(paths) > 1 else None
    if jobs > 1 and len(paths) > 1:
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            for result in pool.map(process_file, paths, [options] * len(paths), chunksize=4):
                results.append(result)
                if progress:
                    progress.step()
    else:
        for path in paths:
            results.append(process_file(path, options))
            if progress:
                progress.step()
    if progress:
        progress.done()
    return results


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




def _report(results: List[FileResult], options: Options, args, findings_stream: Optional[TextIO] = None) -> int:
    stream = findings_stream or sys.stdout
    errors = [result for result in results if result.error is not None]
    for result in errors:
        print(f"{result.path}: {result.error}", file=sys.stderr)
    if args.statistics:
        output.write_statistics(results, args.output_format, stream)
    else:
        output.write_findings(results, options.mode, args.output_format, stream)
    if args.show_fixes:
        for result in results:
            for row in result.applied:
                verb = "fixed" if options.mode == "fix" else "would fix"
                print(f"{result.path}:{row['line']}:{row['column']}: {verb} {row['code']}", file=sys.stderr)
    for result in results:
        if result.unstable:
            print(f"{result.path}: fixes did not settle after several passes; some are left", file=sys.stderr)
    if not args.quiet:
        print(output.summary(results, options.mode, options.unsafe), file=sys.stderr)
    if errors:
        return 2
    return 0 if args.exit_zero else int(_failed(results, options.mode, args))


def _failed(results: List[FileResult], mode: str, args) -> bool:
    """ruff's conventions: fixing everything passes; --check/--diff ask "would a file change?"."""
    changed = any(result.changed for result in results)
    left = any(result.left for result in results)
    if mode in ("check", "diff"):
        return changed or (args.exit_non_zero_on_findings and left)
    return left or (args.exit_non_zero_on_fix and changed)
