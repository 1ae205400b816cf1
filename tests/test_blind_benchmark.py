"""The blind benchmark's scorer prints counts only, and every case has a label and a check."""
import pathlib
import re
import subprocess
import sys

import pytest

BLIND = pathlib.Path(__file__).resolve().parent.parent / "benchmarks" / "blind"
SCORER = BLIND / "score.py"


def blind_cases():
    sys.path.insert(0, str(BLIND))
    try:
        import score
    finally:
        sys.path.remove(str(BLIND))
    return score.load(), score.CATEGORIES


def test_every_case_has_a_label_a_category_and_a_check():
    cases, categories = blind_cases()
    assert len(cases) >= 40
    clean = [case for case in cases if not case[2]]
    assert len(cases) // 5 <= len(clean) <= len(cases) // 2
    for case_id, code, required, _, category in cases:
        assert category in categories
        assert (BLIND / "checks" / f"{case_id}.py").is_file()
        assert all(1 <= line <= len(code.splitlines()) for _, line in required)


def test_scorer_prints_counts_and_no_case_text():
    run = subprocess.run([sys.executable, str(SCORER)], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    cases, categories = blind_cases()
    lines = run.stdout.splitlines()
    assert re.fullmatch(r"cases \d+ flagged \d+ clean \d+", lines[0])
    shapes = (r"code\s+tp\s+fp\s+fn", r"TEN\d{3}\s+\d+\s+\d+\s+\d+", r"cases matched exactly: \d+/\d+",
              r"precision \d\.\d\d recall \d\.\d\d \(tp \d+ fp \d+ fn \d+\)",
              r"(misses|false positives) by category:( none)?", r"\s+(%s)\s+\d+" % "|".join(categories))
    for line in lines[1:]:
        assert any(re.fullmatch(shape, line) for shape in shapes), line
    for case_id, code, *_ in cases:
        assert not re.search(rf"\b{re.escape(case_id)}\b", run.stdout)
        assert not any(text.strip() and text.strip() in run.stdout for text in code.splitlines() if len(text.strip()) > 12)


@pytest.mark.slow
def test_every_check_passes_or_skips_on_cpu():
    run = subprocess.run([sys.executable, str(SCORER), "--check"], capture_output=True, text=True, timeout=3000)
    assert run.returncode == 0 and re.fullmatch(r"checks on cpu: OK \d+ SKIP \d+ FAIL 0", run.stdout.strip())
