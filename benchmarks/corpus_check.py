"""Robustness and findings on the real-world corpus (fetch it first with corpus.py).

    python benchmarks/corpus_check.py [--cache benchmarks/.cache/corpus] [-j 2] [--fix]

Lints every file with the engine and counts findings per rule per project; a crash is any
exception escaping the engine. With ``--fix`` it also runs the fixer with unsafe fixes on
every file with findings and checks that the output parses and that fixing it again changes
nothing. Writes ``benchmarks/results/corpus_findings.json`` (every finding, for the triage in
``findings.md``) and ends with one summary line.
"""

import argparse
import ast
import json
import traceback
from collections import Counter, defaultdict
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from flake8_tensorcopy.engine import SourceError, lint_source
from flake8_tensorcopy.files import read_source
from flake8_tensorcopy.fixer import fix_source

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"


def check_file(task):
    path, fix = task
    row = {"path": str(path), "findings": [], "crash": None, "unparsable": False, "fix_problem": None}
    try:
        source, _encoding = read_source(path)
    except (OSError, UnicodeDecodeError, SyntaxError):
        row["unparsable"] = True
        return row
    try:
        findings = lint_source(source)
    except SourceError:
        row["unparsable"] = True
        return row
    except Exception:
        row["crash"] = traceback.format_exc(limit=6)
        return row
    row["findings"] = [(f.code, f.line, f.col, f.message) for f in findings]
    if fix and findings:
        try:
            once = fix_source(source, unsafe=True).source
            ast.parse(once)
            if fix_source(once, unsafe=True).source != once:
                row["fix_problem"] = "not idempotent"
        except SyntaxError as error:
            row["fix_problem"] = f"fixed output does not parse: {error}"
        except Exception:
            row["fix_problem"] = "fixer crashed: " + traceback.format_exc(limit=6)
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache", type=Path, default=HERE / ".cache" / "corpus")
    parser.add_argument("-j", "--jobs", type=int, default=2)
    parser.add_argument("--fix", action="store_true")
    args = parser.parse_args()
    projects = sorted(path for path in args.cache.iterdir() if path.is_dir() and not path.name.startswith("_"))
    tasks = [(path, args.fix) for project in projects for path in sorted(project.rglob("*.py"))]
    counts = defaultdict(Counter)
    crashes, fix_problems, unparsable, rows = [], [], 0, []
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        for row in pool.map(check_file, tasks, chunksize=16):
            project = Path(row["path"]).relative_to(args.cache).parts[0]
            unparsable += row["unparsable"]
            if row["crash"]:
                crashes.append(row)
            if row["fix_problem"]:
                fix_problems.append(row)
            for code, line, col, message in row["findings"]:
                counts[project][code] += 1
                rows.append({"project": project, "path": row["path"], "line": line, "col": col,
                             "code": code, "message": message})
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "corpus_findings.json").write_text(json.dumps(rows, indent=0) + "\n", encoding="utf-8")
    for row in crashes + fix_problems:
        print(row["path"], row["crash"] or row["fix_problem"])
    codes = sorted({code for counter in counts.values() for code in counter})
    print("| project | " + " | ".join(codes) + " |")
    for project in sorted(counts):
        print(f"| {project} | " + " | ".join(str(counts[project][code]) for code in codes) + " |")
    print(f"corpus: {len(tasks)} files, {len(rows)} findings, {len(crashes)} crashes, "
          f"{len(fix_problems)} fix problems, {unparsable} files LibCST or ast cannot parse")


if __name__ == "__main__":
    main()
