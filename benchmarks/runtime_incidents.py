"""The incident checks under the runtime monitor: each ``checks/<id>.py <device>`` runs under
``tensorcopy-run --json``, and its reports are scored against the labels of the ``cases.md``
beside the checks folder.

    python benchmarks/runtime_incidents.py --checks ../shared/incidents/checks --device cpu --markdown
    python benchmarks/runtime_incidents.py --checks benchmarks/blind/checks --device cuda --counts-only

Per case: its label, the check's own verdict under the monitor (``OK``, ``SKIP`` where the claim
does not apply to the device, ``FAIL`` where it raised, printed no verdict or timed out), the
codes reported anywhere in the run, and the outcome (``found``/``MISSED`` for a positive,
``silent``/``FALSE`` for a clean case, ``+other`` where a positive also got another code). Then
the totals over the cases whose check ran (not ``SKIP``): recall of the labelled codes, clean
cases with any report, positive cases with a report of another code.

``--counts-only`` prints the totals and the count per outcome and nothing that names a case, its
label or its reports: the blind set's cases must not be read by the detector's authors. A checks
folder under a folder named ``blind`` is refused without it. Standard library only, apart from
the package itself, run as ``python -m flake8_tensorcopy.runtime.command`` (no console script on
PATH needed).
"""

import argparse
import collections
import importlib.util
import json
import os
import re
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Dict, List, NamedTuple, Optional, Set

ROOT = Path(__file__).resolve().parent.parent
HEADER = re.compile(r"^### case (\S+?):\s*(.+?)\s+—", re.M)
LABEL = re.compile(r"(flag|allow)\s+(TEN\d+)\s+line\s+(\d+)")
MONITOR_MODULE = "flake8_tensorcopy.runtime.command"


class Case(NamedTuple):
    id: str
    required: Set[str]  # the labelled codes; empty for a clean case
    allowed: Set[str]
    category: str = ""


class Run(NamedTuple):
    verdict: str  # OK, SKIP, FAIL
    codes: Set[str]
    detail: str


def load_cases(path: Path) -> List[Case]:
    """The cases of a ``cases.md``, read by the set's own ``score.py`` beside it where it has a
    ``load(path)`` (its tuples: id, code, required and allowed ``(code, line)``, and a category
    where the set has them), else parsed here."""
    scorer = path.parent / "score.py"
    if scorer.is_file():
        spec = importlib.util.spec_from_file_location(f"cases_scorer_{abs(hash(str(scorer)))}", scorer)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        if callable(getattr(module, "load", None)):
            return [Case(entry[0], {code for code, _ in entry[2]}, {code for code, _ in entry[3]},
                         *(entry[4:5])) for entry in module.load(path)]
    return parse_cases(path)


def parse_cases(path: Path) -> List[Case]:
    """``### case ID: clean — ...`` or ``### case ID: flag CODE line N[; allow CODE line N] — ...``."""
    cases = []
    for match in HEADER.finditer(path.read_text(encoding="utf-8")):
        case_id, label = match.group(1), match.group(2).strip()
        required, allowed = set(), set()
        if label != "clean":
            for kind, code, _ in LABEL.findall(label):
                (required if kind == "flag" else allowed).add(code)
            if not required:
                raise SystemExit(f"{path}: case {case_id}: cannot read its label")
        cases.append(Case(case_id, required, allowed))
    if not cases:
        raise SystemExit(f"{path}: no '### case ID: LABEL —' header found")
    return cases


def check_of(checks: Path, case_id: str) -> Optional[Path]:
    """``<id>.py`` or ``<prefix>_<id>.py`` in the checks folder."""
    exact = checks / f"{case_id}.py"
    if exact.is_file():
        return exact
    found = sorted(checks.glob(f"*_{case_id}.py"))
    return found[0] if len(found) == 1 else None


def run_check(check: Optional[Path], device: str, timeout: float) -> Run:
    if check is None:
        return Run("FAIL", set(), "no check file")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    with tempfile.TemporaryDirectory() as tmp:
        report_path = Path(tmp, "reports.json")
        command = [sys.executable, "-m", MONITOR_MODULE, "--json", str(report_path), str(check), device]
        try:
            done = subprocess.run(command, capture_output=True, text=True, cwd=check.parent, env=env,
                                  timeout=timeout)
        except subprocess.TimeoutExpired:
            return Run("FAIL", set(), f"timed out after {timeout:.0f} s")
        codes = set()
        if report_path.is_file():
            codes = {report["code"] for report in json.loads(report_path.read_text(encoding="utf-8"))["reports"]}
    verdicts = [line.split()[0] for line in done.stdout.splitlines() if line.split()[:1] in (["OK"], ["SKIP"])]
    if done.returncode != 0 or not verdicts:
        return Run("FAIL", codes, (done.stderr.strip().splitlines() or [f"exit status {done.returncode}"])[-1])
    return Run(verdicts[-1], codes, "")


def outcome(case: Case, run: Run) -> str:
    if run.verdict == "SKIP":
        return ""
    if not case.required:
        return "FALSE" if run.codes else "silent"
    words = ["found" if case.required <= run.codes else "MISSED"]
    if run.codes - case.required - case.allowed:
        words.append("+other")
    return " ".join(words)


def totals(cases: List[Case], runs: Dict[str, Run]) -> List[str]:
    ran = [case for case in cases if runs[case.id].verdict != "SKIP"]
    positives = [case for case in ran if case.required]
    clean = [case for case in ran if not case.required]
    labelled = sum(len(case.required) for case in positives)
    found = sum(len(case.required & runs[case.id].codes) for case in positives)
    false = sum(1 for case in clean if runs[case.id].codes)
    other = sum(1 for case in positives if runs[case.id].codes - case.required - case.allowed)
    verdicts = collections.Counter(runs[case.id].verdict for case in cases)
    outcomes = collections.Counter(outcome(case, runs[case.id]) for case in ran)
    recall = found / labelled if labelled else 0.0
    by_category = collections.defaultdict(collections.Counter)
    for case in ran:
        if case.category:
            by_category[case.category][outcome(case, runs[case.id])] += 1
    return [
        f"cases {len(cases)}: checks OK {verdicts['OK']}, SKIP {verdicts['SKIP']}, FAIL {verdicts['FAIL']}",
        f"recall {found}/{labelled} labelled codes ({recall:.3f}) on {len(positives)} positive cases that ran",
        f"false reports: {false} of {len(clean)} clean cases that ran",
        f"reports of another code: {other} of {len(positives)} positive cases that ran",
        "outcomes: " + _counts(outcomes),
    ] + [f"  {category}: {_counts(counts)}" for category, counts in sorted(by_category.items())]


def _counts(counter) -> str:
    return ", ".join(f"{word} {count}" for word, count in sorted(counter.items()))


def table(cases: List[Case], runs: Dict[str, Run], device: str, markdown: bool) -> List[str]:
    header = ["case", "label", f"check on {device}", "monitor reports", "outcome"]
    rows = [[case.id, ", ".join(sorted(case.required)) or "clean", runs[case.id].verdict,
             ", ".join(sorted(runs[case.id].codes)) or "-", outcome(case, runs[case.id])] for case in cases]
    if markdown:
        return ["| " + " | ".join(row) + " |" for row in [header, ["---"] * len(header), *rows]]
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    return ["  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip() for row in [header, *rows]]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checks", required=True, type=Path, help="the checks folder (cases.md is beside it)")
    parser.add_argument("--device", required=True, choices=("cpu", "cuda"))
    parser.add_argument("--markdown", action="store_true", help="the per-case table as Markdown")
    parser.add_argument("--counts-only", action="store_true",
                        help="totals and counts per outcome only: no case id, label or report (the blind set)")
    parser.add_argument("--jobs", type=int, default=1, help="checks run at once (default 1: timing-sensitive "
                        "CUDA claims want an idle device)")
    parser.add_argument("--timeout", type=float, default=600, help="seconds per check before it counts as FAIL")
    args = parser.parse_args(argv)
    checks = args.checks.resolve()
    cases_md = checks.parent / "cases.md"
    if not checks.is_dir() or not cases_md.is_file():
        print(f"runtime_incidents: need a checks folder with cases.md beside it: {args.checks}", file=sys.stderr)
        return 2
    if "blind" in checks.parts and not args.counts_only:
        print("runtime_incidents: a blind set is scored with --counts-only (its cases must not be shown)",
              file=sys.stderr)
        return 2
    cases = load_cases(cases_md)
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        found = pool.map(lambda case: run_check(check_of(checks, case.id), args.device, args.timeout), cases)
        runs = {case.id: run for case, run in zip(cases, found)}
    lines = [f"device {args.device}, python {sys.version.split()[0]}"]
    if not args.counts_only:
        lines += table(cases, runs, args.device, args.markdown) + [""]
        lines += [f"FAIL {case.id}: {runs[case.id].detail}" for case in cases if runs[case.id].verdict == "FAIL"]
    print("\n".join(lines + totals(cases, runs)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
