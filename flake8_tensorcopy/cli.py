"""``tensorcopy-fix``: the codemod users run from a shell, pre-commit or an editor.

Exit codes: 0 nothing to report, 1 findings left or files changed (with ``--check``/``--diff``:
files would change), 2 usage error or a file that could not be read, parsed or written.
"""

import argparse
import ast
import difflib
import io
import json
import os
import sys
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Sequence

from flake8_tensorcopy import __version__
from flake8_tensorcopy.analysis.conventions import configure as configure_conventions
from flake8_tensorcopy.engine import Finding, SourceError, lint_source
from flake8_tensorcopy.files import Excluder, decode, python_files, read_source, write_atomically
from flake8_tensorcopy.fixer import fix_source, fixable, source_lines, suppressed
from flake8_tensorcopy.rules import ALL_RULES, RULES_BY_CODE

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


@dataclass
class Options:
    rules: tuple
    unsafe: bool
    mode: str  # "fix", "check", "diff" or "report"


@dataclass
class FileResult:
    """What happened to one file; plain data, so a worker process can send it back."""

    path: str
    source: str = ""
    fixed: str = ""
    applied: List[dict] = field(default_factory=list)
    remaining: List[dict] = field(default_factory=list)
    error: Optional[str] = None
    written: bool = False
    unstable: bool = False

    @property
    def changed(self) -> bool:
        return self.fixed != self.source


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


def process_source(path: str, source: str, options: Options) -> FileResult:
    """Lint, and unless only reporting fix, one source text (nothing is written here)."""
    result = FileResult(path, source, source)
    try:
        if options.mode == "report":
            lines = source_lines(source)
            findings = [f for f in lint_source(source, rules=options.rules) if not suppressed(f, lines)]
            result.remaining = [_finding_row(finding, options.unsafe) for finding in findings]
            return result
        fixed = fix_source(source, options.rules, unsafe=options.unsafe)
        result.fixed = fixed.source
        result.applied = [_finding_row(finding, options.unsafe) for finding in fixed.applied]
        result.remaining = [_finding_row(finding, options.unsafe) for finding in fixed.remaining]
        result.unstable = fixed.unstable
    except SourceError as error:
        result.error = f"cannot parse: {error}"
    except RecursionError:
        result.error = "too deeply nested to analyse"
    if result.error is not None:
        result.fixed = source
    return result


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


def load_config(start: Path) -> Dict[str, object]:
    """``[tool.tensorcopy]`` of the nearest pyproject.toml above ``start`` (empty if none)."""
    for directory in [start, *start.parents]:
        candidate = directory / "pyproject.toml"
        if candidate.is_file():
            return _tool_table(candidate.read_text(encoding="utf-8"))
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
    try:
        config = load_config(Path.cwd())
        configure_conventions(config)
    except ValueError as error:
        print(f"tensorcopy-fix: {error}", file=sys.stderr)
        return 2
    select = _codes(args.select) or _codes(config.get("select"))
    ignore = _codes(args.ignore) + _codes(config.get("ignore"))
    unknown = [code for code in select + ignore if not any(rule.code.startswith(code) for rule in ALL_RULES)]
    if unknown:
        print(f"tensorcopy-fix: unknown code or prefix: {', '.join(unknown)}", file=sys.stderr)
        return 2
    configured_unsafe = config.get("unsafe-fixes", False)
    configured_exclude = config.get("exclude", [])
    if not isinstance(configured_unsafe, bool) or not isinstance(configured_exclude, (list, str)):
        print("tensorcopy-fix: [tool.tensorcopy] unsafe-fixes must be true/false, exclude a list", file=sys.stderr)
        return 2
    if isinstance(configured_exclude, str):
        configured_exclude = [configured_exclude]
    unsafe = args.unsafe_fixes if args.unsafe_fixes is not None else configured_unsafe
    mode = "check" if args.check else "diff" if args.diff else "report" if args.no_fix else "fix"
    options = Options(_selected_rules(select, ignore), unsafe, mode)
    if args.paths == ["-"]:
        return _run_stdin(options, args)
    if "-" in args.paths:
        print("tensorcopy-fix: error: - (stdin) cannot be mixed with paths", file=sys.stderr)
        return 2
    missing = [path for path in args.paths if not os.path.exists(path)]
    if missing:
        print(f"tensorcopy-fix: no such file or directory: {', '.join(missing)}", file=sys.stderr)
        return 2
    excluder = Excluder(list(args.exclude) + list(configured_exclude))
    # once each: a file named and also found in a named directory must not be fixed twice
    paths = list(dict.fromkeys(str(path) for path in python_files(args.paths, excluder)))
    results = _run_files(paths, options, max(1, args.jobs), show_progress=not args.quiet and sys.stderr.isatty())
    return _report(results, options, args)


def _run_stdin(options: Options, args) -> int:
    raw = sys.stdin.buffer.read()
    try:
        source, encoding = decode(raw)
    except (SyntaxError, UnicodeDecodeError) as error:
        print(f"tensorcopy-fix: -: cannot read: {error}", file=sys.stderr)
        return 2
    result = process_source("-", source, options)
    if result.error is not None:
        if options.mode == "fix":
            sys.stdout.buffer.write(raw)  # an editor replacing its buffer with our output loses nothing
        print(f"-: {result.error}", file=sys.stderr)
        return 2
    if options.mode == "fix":
        # bytes in the input's encoding (cookie, BOM): stdout's own encoding would corrupt the file
        sys.stdout.buffer.write(result.fixed.encode(encoding))
        return 1 if result.changed or result.remaining else 0
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


def _report(results: List[FileResult], options: Options, args) -> int:
    errors = [result for result in results if result.error is not None]
    for result in errors:
        print(f"{result.path}: {result.error}", file=sys.stderr)
    if options.mode == "diff":
        for result in results:
            if result.changed:
                sys.stdout.writelines(_diff(result))
    elif options.mode == "check":
        for result in results:
            if result.changed:
                print(f"would fix {_count(len(result.applied), 'finding')} in {result.path}")
    else:
        _print_findings(results, options, args.output_format)
    if args.show_fixes:
        for result in results:
            for row in result.applied:
                verb = "fixed" if options.mode == "fix" else "would fix"
                print(f"{result.path}:{row['line']}:{row['column']}: {verb} {row['code']}", file=sys.stderr)
    for result in results:
        if result.unstable:
            print(f"{result.path}: fixes did not settle after several passes; some are left", file=sys.stderr)
    if not args.quiet:
        print(_summary(results, options), file=sys.stderr)
    if errors:
        return 2
    changed = any(result.changed for result in results)
    if options.mode in ("check", "diff"):
        return 1 if changed else 0  # "would something change?"
    left = any(result.remaining for result in results)
    return 1 if changed or left else 0


def _diff(result: FileResult) -> List[str]:
    """A unified diff ``patch`` and ``git apply`` accept: lines split where Python splits them
    (not at form feeds, as str.splitlines does), and a last line without newline marked."""
    lines = difflib.unified_diff(
        io.StringIO(result.source, newline="").readlines(),
        io.StringIO(result.fixed, newline="").readlines(),
        fromfile=f"a/{result.path}",
        tofile=f"b/{result.path}",
    )
    return [line if line.endswith(("\n", "\r")) else line + "\n\\ No newline at end of file\n" for line in lines]


def _summary(results: List[FileResult], options: Options) -> str:
    applied = sum(len(result.applied) for result in results)
    files = sum(1 for result in results if result.changed)
    left = [row for result in results for row in result.remaining]
    waiting = sum(1 for row in left if row["fix"] is not None and not row["fix"]["safe"] and not options.unsafe)
    if options.mode == "report":
        return f"found {_count(len(left), 'finding')} in {_count(len(results), 'file')}"
    verb = "fixed" if options.mode == "fix" else "would fix"
    line = f"{verb} {_count(applied, 'finding')} in {_count(files, 'file')}, {len(left)} left"
    if waiting:
        line += f" ({waiting} unsafe; use --unsafe-fixes)"
    return line


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"


def _print_findings(results: List[FileResult], options: Options, output_format: str) -> None:
    rows = [(result.path, row) for result in results for row in result.remaining]
    if output_format == "json":
        print(json.dumps([dict(path=path, **row) for path, row in rows], indent=2))
    elif output_format == "sarif":
        print(json.dumps(_sarif(rows, options), indent=2))
    else:
        for path, row in rows:
            mark = " [*]" if row["fix"] is not None and row["fix"]["applicable"] else ""
            print(f"{path}:{row['line']}:{row['column']}: {row['code']} {row['message']}{mark}")


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
