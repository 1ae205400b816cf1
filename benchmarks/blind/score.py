#!/usr/bin/env python3
"""Score the installed plugin on the blind incident cases; print counts only, never case text.

Each case in cases.md is a header
    ### case ID: LABEL [CATEGORY] — rationale (source: ...)
followed by a fenced python block. LABEL is `clean`, or `flag CODE line N` (several joined by `; `),
optionally with `allow CODE line N` (a second finding that is also correct). CATEGORY names the
evidence a linter needs to see the hazard (see README.md).

    python benchmarks/blind/score.py            # flake8 with its default selection (TEN9xx off)
    python benchmarks/blind/score.py --check    # run every check script: counts of OK/SKIP/FAIL

Output: totals, per-code tp/fp/fn, precision and recall, and the misses and false positives counted
per category. Detector authors read this output only: it never names a case, a line or a message.
"""
import argparse
import collections
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent
CASES = HERE / "cases.md"
CATEGORIES = ("caller-passes", "helper-returns", "self-attributes", "containers", "name-only", "api-facts",
              "loops", "async-flow", "moves", "local", "other")
HEADER = re.compile(r"^### case (\S+?): (.+?) \[([a-z-]+)\] — ")
FINDING = re.compile(r"(flag|allow) (TEN\d{3}) line (\d+)")


def load(path=CASES):
    """Cases as (id, code, required findings, allowed findings, category)."""
    text = pathlib.Path(path).read_text(encoding="utf-8")
    cases = []
    for match in re.finditer(r"^### case .*?\n```python\n(.*?)```", text, re.S | re.M):
        header = HEADER.match(match.group(0))
        if header is None or header.group(3) not in CATEGORIES:
            raise SystemExit("a case header cannot be read (label or category)")
        case_id, label, category = header.groups()
        required, allowed = set(), set()
        for kind, code, line in FINDING.findall(label):
            (required if kind == "flag" else allowed).add((code, int(line)))
        if label != "clean" and not required:
            raise SystemExit("a flagged case has no readable finding")
        cases.append((case_id, match.group(1), required, allowed, category))
    return cases


def findings(flake8, cases):
    """TEN findings per case id, from flake8 run with its default selection."""
    with tempfile.TemporaryDirectory() as tmp:
        for case_id, code, *_ in cases:
            pathlib.Path(tmp, f"case_{case_id}.py").write_text(code, encoding="utf-8")
        run = subprocess.run([flake8, "--isolated", "--format=%(path)s|%(row)d|%(code)s", tmp],
                             capture_output=True, text=True)
    if run.returncode not in (0, 1):
        raise SystemExit("flake8 failed (run it on one case by hand to see why)")
    found = collections.defaultdict(set)
    for line in run.stdout.splitlines():
        path, row, code = line.rsplit("|", 2)
        if code.startswith("TEN"):
            found[pathlib.Path(path).stem[len("case_"):]].add((code, int(row)))
    return found


def score(cases, found):
    tp, fp, fn = collections.Counter(), collections.Counter(), collections.Counter()
    missed, false_alarms = collections.Counter(), collections.Counter()
    exact = 0
    for case_id, _, required, allowed, category in cases:
        got = found.get(case_id, set()) - allowed
        for code, _ in got & required:
            tp[code] += 1
        for code, _ in got - required:
            fp[code] += 1
            false_alarms[category] += 1
        for code, _ in required - got:
            fn[code] += 1
            missed[category] += 1
        exact += got == required
    flagged = sum(bool(case[2]) for case in cases)
    print(f"cases {len(cases)} flagged {flagged} clean {len(cases) - flagged}")
    print(f"{'code':8} {'tp':>4} {'fp':>4} {'fn':>4}")
    for code in sorted(set(tp) | set(fp) | set(fn)):
        print(f"{code:8} {tp[code]:4} {fp[code]:4} {fn[code]:4}")
    total_tp, total_fp, total_fn = sum(tp.values()), sum(fp.values()), sum(fn.values())
    precision = total_tp / (total_tp + total_fp) if total_tp + total_fp else 0.0
    recall = total_tp / (total_tp + total_fn) if total_tp + total_fn else 0.0
    print(f"cases matched exactly: {exact}/{len(cases)}")
    print(f"precision {precision:.2f} recall {recall:.2f} (tp {total_tp} fp {total_fp} fn {total_fn})")
    for title, counts in (("misses by category", missed), ("false positives by category", false_alarms)):
        print(f"{title}:" + ("" if counts else " none"))
        for category in CATEGORIES:
            if counts[category]:
                print(f"  {category:16} {counts[category]}")


def check(cases, device):
    """Run every check script; print only how many passed, skipped and failed."""
    outcome = collections.Counter()
    for case_id, *_ in cases:
        script = HERE / "checks" / f"{case_id}.py"
        run = subprocess.run([sys.executable, str(script), device], capture_output=True, text=True, timeout=600)
        last = run.stdout.strip().splitlines()[-1:] if run.returncode == 0 else []
        status = last[0].split()[0] if last and last[0].split()[0] in ("OK", "SKIP") else "FAIL"
        outcome[status] += 1
    print(f"checks on {device}: OK {outcome['OK']} SKIP {outcome['SKIP']} FAIL {outcome['FAIL']}")
    return 1 if outcome["FAIL"] else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--flake8", default=shutil.which("flake8") or "flake8")
    parser.add_argument("--check", action="store_true", help="run every check script instead of scoring")
    parser.add_argument("--device", default="cpu", choices=("cpu", "cuda"), help="device for --check")
    args = parser.parse_args()
    cases = load()
    if args.check:
        return check(cases, args.device)
    score(cases, findings(args.flake8, cases))
    return 0


if __name__ == "__main__":
    sys.exit(main())
