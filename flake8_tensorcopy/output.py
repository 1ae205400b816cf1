"""What ``tensorcopy-fix`` prints: findings as text, JSON, SARIF or GitHub annotations,
statistics, the summary line, diffs and the rule list.

Every reporter takes the per-file results (``path``, ``remaining``: the findings of the file as
it is on disk after the run, ``left``, ``applied``, ``changed``, ``error``, ``diff``) and a
stream, so stdin's fix mode can print its findings to stderr while stdout carries the source.
The JSON document's shape is versioned (``JSON_SCHEMA_VERSION``) and documented in the README.
"""

import json
import os
import re
from collections import Counter
from pathlib import Path
from typing import Optional, Sequence, TextIO
from urllib.parse import quote

import libcst as cst

from flake8_tensorcopy import __version__
from flake8_tensorcopy.fixer import fixable
from flake8_tensorcopy.fixes import with_comments_of
from flake8_tensorcopy.rules import ALL_RULES, RULES_BY_CODE

FORMATS = ("text", "json", "sarif", "github")
STREAMED = ("text", "github")  # printed file by file as results arrive
JSON_SCHEMA_VERSION = 1
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
HOME = "https://github.com/flake8-tensorcopy/flake8-tensorcopy"
SRCROOT = "%SRCROOT%"
_EMPTY = cst.Module(body=[])


def rule_url(code: str) -> str:
    """The rule's row in the README's rule table (its anchor is the code in lower case)."""
    return f"{HOME}#{code.lower()}"


def finding_row(finding, unsafe: bool, lines: Optional[Sequence[str]] = None) -> dict:
    """One finding as plain data (1-based columns), with the edits its fix would make to the
    text whose ``lines`` these are (without them, a fix's edits are left out)."""
    fix = None
    if finding.fix is not None:
        fix = {"safe": finding.fix.safe, "applicable": fixable(finding, unsafe)}
        if lines is not None:
            fix["edits"] = [_edit(finding, lines)]
    return {
        "code": finding.code,
        "line": finding.line,
        "column": finding.col + 1,
        "end_line": finding.end_line,
        "end_column": finding.end_col + 1,
        "message": finding.message,
        "fix": fix,
    }


def _edit(finding, lines: Sequence[str]) -> dict:
    """The replacement as the fixer writes it: continuation lines (a comment carried over
    inside parentheses) take the indentation of the line the finding starts on."""
    content = _EMPTY.code_for_node(with_comments_of(finding.node, finding.fix.replacement))
    if "\n" in content and finding.line <= len(lines):
        first = lines[finding.line - 1]
        content = re.sub(r"\n(?=.)", "\n" + first[: len(first) - len(first.lstrip())], content)
    return {"line": finding.line, "column": finding.col + 1, "end_line": finding.end_line,
            "end_column": finding.end_col + 1, "content": content}


def applicable(row: dict) -> bool:
    return row["fix"] is not None and row["fix"]["applicable"]


def waits_for_unsafe(row: dict) -> bool:
    """A finding whose fix only ``--unsafe-fixes`` applies."""
    return row["fix"] is not None and not row["fix"]["applicable"]


def row_order(row: dict) -> tuple:
    """Findings in reading order: cell (notebooks), line, column, then code."""
    return row.get("cell", 0), row["line"], row["column"], row["code"]


def write_file(result, mode: str, output_format: str, stream: TextIO) -> None:
    """One file's outcome in a streamed format (text, github): the diff (``--diff``), what
    would change (``--check``) and its findings (``--check``: those no fix removes)."""
    if mode == "diff":
        stream.writelines(result.diff)
    elif mode == "check" and result.changed:
        stream.write(f"would fix {count(len(result.applied), 'finding')} in {result.path}\n")
    if output_format == "github":
        stream.writelines(_github_line(result.path, row) + "\n" for row in result.remaining)
    elif mode != "diff":  # a diff stays a patch ``git apply`` takes
        stream.writelines(_text_line(result.path, row) + "\n" for row in result.remaining
                          if mode != "check" or not applicable(row))


def write_document(results: Sequence, mode: str, output_format: str, stream: TextIO) -> None:
    """Every file's findings as one JSON or SARIF document."""
    _dump(_json_document(results, mode) if output_format == "json" else _sarif(results), stream)


def location(path: str, row: dict) -> str:
    """``path:line:col``; in a notebook ``nb.ipynb:cell 3:2:8`` (lines counted inside the cell)."""
    cell = f"cell {row['cell']}:" if "cell" in row else ""
    return f"{path}:{cell}{row['line']}:{row['column']}"


def _text_line(path: str, row: dict) -> str:
    mark = " [*]" if applicable(row) else ""
    return f"{location(path, row)}: {row['code']} {row['message']}{mark}"


def _github_line(path: str, row: dict) -> str:
    """A GitHub Actions workflow command: an annotation on the file's line in a pull request
    (a notebook's finding on the whole file, its cell and lines in the title: the lines of the
    ``.ipynb`` are JSON, not the cell's)."""
    if "cell" in row:
        properties = f"file={_escape_property(path)},title={_escape_property(_in_cell(row))}"
    else:
        properties = (f"file={_escape_property(path)},line={row['line']},col={row['column']},"
                      f"endLine={row['end_line']},endColumn={row['end_column']},title={row['code']}")
    return f"::warning {properties}::{_escape_data(row['message'])}"


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def _dump(document, stream: TextIO) -> None:
    stream.write(json.dumps(document, indent=2) + "\n")


def _json_document(results: Sequence, mode: str) -> dict:
    files = []
    for result in results:
        entry = {"path": result.path, "changed": result.changed, "fixes": len(result.applied), "error": result.error}
        if mode == "diff":
            entry["diff"] = "".join(result.diff)
        files.append(entry)
    return {
        "schema_version": JSON_SCHEMA_VERSION,
        "tool": {"name": "tensorcopy-fix", "version": __version__},
        "mode": mode,
        "findings": [dict(path=result.path, **row, url=rule_url(row["code"]))
                     for result in results for row in result.remaining],
        "files": files,
    }


def _sarif(results: Sequence) -> dict:
    root = Path.cwd()
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "flake8-tensorcopy",
                        "version": __version__,
                        "informationUri": HOME,
                        "rules": [_sarif_rule(rule) for rule in ALL_RULES],
                    }
                },
                "originalUriBaseIds": {SRCROOT: {"uri": root.as_uri() + "/"}},
                "results": [_sarif_result(_artifact(result.path, root), row)
                            for result in results for row in result.remaining],
            }
        ],
    }


def _sarif_rule(rule) -> dict:
    return {"id": rule.code, "shortDescription": {"text": rule.summary},
            "fullDescription": {"text": rule.documentation()}, "helpUri": rule_url(rule.code),
            "properties": {"fix": rule.fix_safety}}


def _artifact(path: str, root: Path) -> dict:
    """A location relative to ``%SRCROOT%`` (the working directory) when the file is under it."""
    absolute = Path(os.path.abspath(path))
    try:
        relative = absolute.relative_to(root)
    except ValueError:
        return {"uri": absolute.as_uri()}
    return {"uri": quote(relative.as_posix()), "uriBaseId": SRCROOT}


def _region(row: dict, prefix: str = "") -> dict:
    return {"startLine": row[prefix + "line"], "startColumn": row[prefix + "column"],
            "endLine": row[prefix + "end_line"], "endColumn": row[prefix + "end_column"]}


def _in_cell(row: dict) -> str:
    return f"{row['code']} (cell {row['cell']}:{row['line']}:{row['column']})"


def _sarif_result(artifact: dict, row: dict) -> dict:
    """A finding as a SARIF result; a notebook's has no region (the file's lines are JSON):
    its cell and lines are in the message and in ``properties``, and its fix is left out."""
    result = {
        "ruleId": row["code"],
        "level": "warning",
        "message": {"text": row["message"]},
        "locations": [{"physicalLocation": {"artifactLocation": artifact, "region": _region(row)}}],
    }
    if "cell" in row:
        result["message"]["text"] = f"cell {row['cell']}:{row['line']}:{row['column']}: {row['message']}"
        result["locations"] = [{"physicalLocation": {"artifactLocation": artifact}}]
        result["properties"] = {"cell": row["cell"], **_region(row)}
        return result
    if row["fix"] is not None:
        safety = "safe fix" if row["fix"]["safe"] else "unsafe fix (applied with --unsafe-fixes)"
        result["fixes"] = [{
            "description": {"text": f"{row['code']}: {safety}"},
            "artifactChanges": [{
                "artifactLocation": artifact,
                "replacements": [{"deletedRegion": _region(edit), "insertedContent": {"text": edit["content"]}}
                                 for edit in row["fix"]["edits"]],
            }],
        }]
    return result


def write_statistics(results: Sequence, mode: str, output_format: str, stream: TextIO) -> None:
    """How many findings of each code, how many a fix removes now and how many only with
    ``--unsafe-fixes`` (JSON: the versioned document, with ``statistics``)."""
    counts: Counter = Counter()
    fixable_counts: Counter = Counter()
    unsafe_counts: Counter = Counter()
    for result in results:
        for row in result.remaining:
            counts[row["code"]] += 1
            fixable_counts[row["code"]] += applicable(row)
            unsafe_counts[row["code"]] += waits_for_unsafe(row)
    rows = [{"code": code, "count": counts[code], "fixable": fixable_counts[code], "unsafe": unsafe_counts[code],
             "summary": RULES_BY_CODE[code].summary} for code in sorted(counts)]
    if output_format == "json":
        _dump({**_json_document(results, mode), "statistics": rows}, stream)
        return
    for row in rows:
        fixes = [f"{row[key]} {key}" for key in ("fixable", "unsafe") if row[key]]
        stream.write(f"{row['count']:>5}  {row['code']}  {', '.join(fixes) or 'no fix':<20}  {row['summary']}\n")


def write_rules(output_format: str, stream: TextIO, rules: Sequence = ALL_RULES) -> None:
    """Rules: code, what its fix is, summary (``--explain all``, ``--explain TEN2``)."""
    if output_format == "json":
        _dump([{"code": rule.code, "fix": rule.fix_safety, "summary": rule.summary, "url": rule_url(rule.code)}
               for rule in rules], stream)
        return
    for rule in rules:
        stream.write(f"{rule.code}  {rule.fix_safety:<6}  {rule.summary}\n")


def summary(results: Sequence, mode: str) -> str:
    """``5 findings in 1 file; 1 fixable, 4 with --unsafe-fixes`` (the files as they are), or
    after fixing ``fixed 12 findings in 5 files; 3 left in 2 files; 3 with --unsafe-fixes``."""
    rows = [row for result in results for row in result.remaining]
    unsafe = sum(map(waits_for_unsafe, rows))
    if mode in ("report", "check"):
        if not rows:
            return f"no findings ({count(len(results), 'file')} checked)"
        files = sum(1 for result in results if result.remaining)
        return (f"{count(len(rows), 'finding')} in {count(files, 'file')}; "
                f"{sum(map(applicable, rows))} fixable, {unsafe} with --unsafe-fixes")
    applied = sum(len(result.applied) for result in results)
    changed = sum(1 for result in results if result.changed)
    left = sum(result.left for result in results)
    verb = "fixed" if mode == "fix" else "would fix"
    line = f"{verb} {count(applied, 'finding')} in {count(changed, 'file')}; {left} left"
    if left:
        line += f" in {count(sum(1 for result in results if result.left), 'file')}"
    if unsafe:
        line += f"; {unsafe} with --unsafe-fixes"
    return line


def count(number: int, noun: str) -> str:
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"

