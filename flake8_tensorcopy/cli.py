"""``tensorcopy-fix``: the codemod users run from a shell, pre-commit or an editor.

Exit codes: 0 nothing to report, 1 findings left or files changed (with ``--check``/``--diff``:
files would change), 2 usage error or a file that could not be read, parsed or written.
"""

import argparse
import ast
import difflib
import functools
import json
import os
import signal
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, Iterable, Iterator, List, Optional, Sequence, Tuple

from flake8_tensorcopy import __version__
from flake8_tensorcopy.analysis.conventions import configure as configure_conventions
from flake8_tensorcopy.engine import Finding, SourceError, lint_source
from flake8_tensorcopy.files import (Excluder, decode, encode_unchanged_elsewhere, python_files, read_regular_file,
                                     remove_stale_temporaries, remove_temporaries_and_exit, write_atomically)
from flake8_tensorcopy.fixer import fix_source, fixable, source_lines, suppressed
from flake8_tensorcopy.rules import ALL_RULES, RULES_BY_CODE
from flake8_tensorcopy.workers import map_in_workers

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
MESSAGE_LIMIT = 160  # characters of an exception's message in a file's one-line error


@dataclass
class Options:
    rules: tuple
    unsafe: bool
    mode: str  # "fix", "check", "diff" or "report"
    exclude: tuple = ()  # from the configuration


@dataclass
class FileResult:
    """What happened to one file: small plain data (no source text), so a worker can send it
    back and the run can keep one per file until the summary."""

    path: str
    changed: bool = False  # written, or (--check/--diff) would be
    applied: List[dict] = field(default_factory=list)
    remaining: List[dict] = field(default_factory=list)
    error: Optional[str] = None
    unstable: bool = False
    diff: List[str] = field(default_factory=list)  # --diff only, dropped once printed


def _finding_row(finding: Finding, unsafe: bool) -> dict:
    return {
        "code": finding.code,
        "line": finding.line,
        "column": finding.col + 1,
        "end_line": finding.end_line,
        "end_column": finding.end_col + 1,
        "message": finding.message,
        "fix": None if finding.fix is None else {"safe": finding.fix.safe, "applicable": fixable(finding, unsafe)},
    }


def one_line(error: BaseException) -> str:
    """An exception as a short single line: a message may be a multi-kilobyte node dump."""
    text = " ".join(str(error).split()) or type(error).__name__
    return text if len(text) <= MESSAGE_LIMIT else text[: MESSAGE_LIMIT - 3] + "..."


def process_source(path: str, source: str, options: Options) -> Tuple[FileResult, str]:
    """Lint, and unless only reporting fix, one source text: the result and the fixed text (the
    source itself after an error). Never raises: whatever goes wrong is the result's error."""
    result = FileResult(path)
    try:
        if options.mode == "report":
            lines = source_lines(source)
            findings = [f for f in lint_source(source, rules=options.rules) if not suppressed(f, lines)]
            result.remaining = [_finding_row(finding, options.unsafe) for finding in findings]
            return result, source
        fixed = fix_source(source, options.rules, unsafe=options.unsafe)
        result.changed = fixed.source != source
        result.applied = [_finding_row(finding, options.unsafe) for finding in fixed.applied]
        result.remaining = [_finding_row(finding, options.unsafe) for finding in fixed.remaining]
        result.unstable = fixed.unstable
        if options.mode == "diff" and result.changed:
            result.diff = _diff(path, source, fixed.source)
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


def process_file(path: str, options: Options) -> FileResult:
    """Read, fix and (in fix mode) write one file. Never raises: a crash is this file's error."""
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
            result.applied, result.changed = [], False
            result.error = f"cannot write: {one_line(error)}"
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


def load_config(start: Path) -> Dict[str, object]:
    """``[tool.tensorcopy]`` of the nearest pyproject.toml above ``start`` (empty if none)."""
    for directory in [start, *start.parents]:
        candidate = directory / "pyproject.toml"
        try:
            if candidate.is_file():
                return _tool_table(candidate.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError) as error:
            raise ValueError(f"cannot read {candidate}: {one_line(error)}") from error
    return {}


def _tool_table(text: str) -> Dict[str, object]:
    try:
        import tomllib  # Python 3.11+
    except ImportError:
        return _tool_table_without_tomllib(text)
    return tomllib.loads(text).get("tool", {}).get("tensorcopy", {})


def _tool_table_without_tomllib(text: str) -> Dict[str, object]:
    """The few TOML shapes our table uses (strings, booleans, arrays of strings), for Python
    3.9/3.10, which have no tomllib and where we add no dependency to get one."""
    table: Dict[str, object] = {}
    inside = False
    pending = ""
    for line in text.splitlines():
        stripped = _without_comment(line).strip()
        if stripped.startswith("[") and not pending:
            inside = stripped == "[tool.tensorcopy]"
            continue
        if not inside or not stripped:
            continue
        pending = f"{pending} {stripped}" if pending else stripped
        key, _, value = pending.partition("=")
        value = value.strip()
        if value.startswith("[") and not value.endswith("]"):
            continue  # an array spread over lines
        pending = ""
        value = {"true": "True", "false": "False"}.get(value, value)
        try:
            table[key.strip().strip('"')] = ast.literal_eval(value)
        except (ValueError, SyntaxError):
            raise ValueError(f"pyproject.toml [tool.tensorcopy]: cannot read {key.strip()} = {value}")
    if pending:
        raise ValueError(f"pyproject.toml [tool.tensorcopy]: unclosed array: {pending}")
    return table


def _without_comment(line: str) -> str:
    """The line before a ``#`` outside quotes: ``x = ["a"]  # why`` must not read as an open array."""
    quote = None
    escaped = False
    for index, char in enumerate(line):
        if escaped:
            escaped = False
        elif quote == '"' and char == "\\":
            escaped = True
        elif char == quote:
            quote = None
        elif quote is None and char in "\"'":
            quote = char
        elif quote is None and char == "#":
            return line[:index]
    return line


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tensorcopy-fix",
        description="Fix PyTorch tensor copying, conversion and aliasing bugs (flake8-tensorcopy's codemod).",
        epilog="Exit codes: 0 clean, 1 findings left or files changed (--check/--diff: would change), "
        "2 usage or I/O error.",
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
    parser.add_argument("--show-fixes", action="store_true", help="list every fix applied")
    parser.add_argument("-j", "--jobs", type=int, default=1, help="worker processes (default 1)")
    parser.add_argument("--output-format", choices=("text", "json", "sarif"), default="text")
    parser.add_argument("--explain", metavar="CODE", help="print a rule's documentation")
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress bar and no summary line")
    parser.add_argument("--version", action="version", version=f"tensorcopy-fix {__version__}")
    return parser


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.explain:
        rule = RULES_BY_CODE.get(args.explain.upper())
        if rule is None:
            print(f"tensorcopy-fix: unknown rule {args.explain}", file=sys.stderr)
            return 2
        print(f"{rule.code}: {rule.summary}\n\n{rule.documentation()}")
        return 0
    if not args.paths:
        parser.print_usage(sys.stderr)
        print("tensorcopy-fix: error: give files or directories to fix (or - for stdin)", file=sys.stderr)
        return 2
    mode = "check" if args.check else "diff" if args.diff else "report" if args.no_fix else "fix"
    try:
        options = _options(args, mode)
    except ValueError as error:
        if args.paths == ["-"] and mode == "fix":
            _echo_stdin()  # an editor replacing its buffer with our output loses nothing
        print(f"tensorcopy-fix: {error}", file=sys.stderr)
        return 2
    if args.paths == ["-"]:
        return _run_stdin(options, args)
    if "-" in args.paths:
        print("tensorcopy-fix: error: - (stdin) cannot be mixed with paths", file=sys.stderr)
        return 2
    # a dangling symlink is one error among the files; a name that is nowhere is a typo
    missing = [path for path in args.paths if not os.path.lexists(path)]
    if missing:
        print(f"tensorcopy-fix: no such file or directory: {', '.join(missing)}", file=sys.stderr)
        return 2
    excluder = Excluder(list(args.exclude) + list(options.exclude))
    # once each: a file named and also found in a named directory must not be fixed twice
    paths = list(dict.fromkeys(str(path) for path in python_files(args.paths, excluder)))
    if mode == "fix":
        remove_stale_temporaries(Path(path) for path in paths)
    with _removing_temporaries_when_killed():
        results = _run_files(paths, options, max(1, args.jobs), show_progress=not args.quiet and sys.stderr.isatty())
        return _report(results, options, args)


def _options(args, mode: str) -> "Options":
    """Options from the flags and ``[tool.tensorcopy]``; ValueError says what is wrong."""
    config = load_config(Path.cwd())
    configure_conventions(config)
    select = _codes(args.select) or _codes(config.get("select"))
    ignore = _codes(args.ignore) + _codes(config.get("ignore"))
    unknown = [code for code in select + ignore if not any(rule.code.startswith(code) for rule in ALL_RULES)]
    if unknown:
        raise ValueError(f"unknown code or prefix: {', '.join(unknown)}")
    configured_unsafe = config.get("unsafe-fixes", False)
    configured_exclude = config.get("exclude", [])
    if not isinstance(configured_unsafe, bool) or not isinstance(configured_exclude, (list, str)):
        raise ValueError("[tool.tensorcopy] unsafe-fixes must be true/false, exclude a list")
    if isinstance(configured_exclude, str):
        configured_exclude = [configured_exclude]
    unsafe = args.unsafe_fixes if args.unsafe_fixes is not None else configured_unsafe
    return Options(_selected_rules(select, ignore), unsafe, mode, tuple(configured_exclude))


def _echo_stdin() -> None:
    try:
        sys.stdout.buffer.write(sys.stdin.buffer.read())
    except (AttributeError, OSError, ValueError):  # no stdin at all: nothing to give back
        pass


def _run_stdin(options: Options, args) -> int:
    """stdin to stdout for editors. Whatever happens, in fix mode stdout holds the fixed source or
    the input unchanged, and every failure exits 2 with one line on stderr."""
    raw = b""
    try:
        if sys.stdin is None:
            raise OSError("stdin is closed")
        raw = sys.stdin.buffer.read()
        source, encoding = decode(raw)
    except Exception as error:
        result, output = FileResult("-", error=f"cannot read: {one_line(error)}"), raw
    else:
        result, fixed = process_source("-", source, options)
        output = raw
        if result.error is None and options.mode == "fix":
            try:
                output = encode_unchanged_elsewhere(raw, source, fixed, encoding)
            except Exception as error:
                result.error = f"cannot write: {one_line(error)}"
    if options.mode != "fix":
        return _report([result], options, args)
    sys.stdout.buffer.write(output)
    sys.stdout.flush()
    if result.error is not None:
        print(f"-: {result.error}", file=sys.stderr)
        return 2
    return 1 if result.changed or result.remaining else 0


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


def _report(results: Iterable[FileResult], options: Options, args) -> int:
    """Print each file's outcome as it arrives; keep only its small rows for the summary."""
    done: List[FileResult] = []
    for result in results:
        _report_file(result, options, args)
        done.append(result)
    if options.mode == "report" and args.output_format != "text":
        _print_structured(done, options, args.output_format)
    if not args.quiet:
        print(_summary(done, options), file=sys.stderr)
    if any(result.error is not None for result in done):
        return 2
    changed = any(result.changed for result in done)
    if options.mode in ("check", "diff"):
        return 1 if changed else 0  # "would something change?"
    left = any(result.remaining for result in done)
    return 1 if changed or left else 0


def _report_file(result: FileResult, options: Options, args) -> None:
    if result.error is not None:
        print(f"{result.path}: {result.error}", file=sys.stderr)
    if options.mode == "diff":
        sys.stdout.writelines(result.diff)
        result.diff = []
    elif options.mode == "check":
        if result.changed:
            print(f"would fix {_count(len(result.applied), 'finding')} in {result.path}")
    elif options.mode == "fix" or args.output_format == "text":
        for row in result.remaining:
            mark = " [*]" if row["fix"] is not None and row["fix"]["applicable"] else ""
            print(f"{result.path}:{row['line']}:{row['column']}: {row['code']} {row['message']}{mark}")
    if args.show_fixes:
        verb = "fixed" if options.mode == "fix" else "would fix"
        for row in result.applied:
            print(f"{result.path}:{row['line']}:{row['column']}: {verb} {row['code']}", file=sys.stderr)
    if result.unstable:
        print(f"{result.path}: fixes did not settle after several passes; some are left", file=sys.stderr)


def _diff(path: str, source: str, fixed: str) -> List[str]:
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
    applied = sum(len(result.applied) for result in results)
    files = sum(1 for result in results if result.changed)
    left = [row for result in results for row in result.remaining]
    waiting = sum(1 for row in left if row["fix"] is not None and not row["fix"]["safe"] and not options.unsafe)
    errors = sum(1 for result in results if result.error is not None)
    if options.mode == "report":
        line = f"found {_count(len(left), 'finding')} in {_count(len(results), 'file')}"
    else:
        verb = "fixed" if options.mode == "fix" else "would fix"
        line = f"{verb} {_count(applied, 'finding')} in {_count(files, 'file')}, {len(left)} left"
        if waiting:
            line += f" ({waiting} unsafe; use --unsafe-fixes)"
    if errors:
        line += f", {_count(errors, 'file')} with errors"
    return line


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"


def _print_structured(results: List[FileResult], options: Options, output_format: str) -> None:
    rows = [(result.path, row) for result in results for row in result.remaining]
    if output_format == "json":
        print(json.dumps([dict(path=path, **row) for path, row in rows], indent=2))
    else:
        print(json.dumps(_sarif(rows, options), indent=2))


def _sarif(rows, options: Options) -> dict:
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "flake8-tensorcopy",
                        "version": __version__,
                        "rules": [
                            {"id": rule.code, "shortDescription": {"text": rule.summary},
                             "fullDescription": {"text": rule.documentation()}}
                            for rule in options.rules
                        ],
                    }
                },
                "results": [
                    {
                        "ruleId": row["code"],
                        "level": "warning",
                        "message": {"text": row["message"]},
                        "locations": [
                            {
                                "physicalLocation": {
                                    "artifactLocation": {"uri": Path(path).as_posix()},
                                    "region": {
                                        "startLine": row["line"],
                                        "startColumn": row["column"],
                                        "endLine": row["end_line"],
                                        "endColumn": row["end_column"],
                                    },
                                }
                            }
                        ],
                    }
                    for path, row in rows
                ],
            }
        ],
    }
