"""benchmarks/runtime_incidents.py: each check runs under tensorcopy-run (as a module, no console
script needed), its reports are scored against the labels beside it, and a blind set shows counts only."""

import subprocess
import sys
import textwrap

import pytest

from conftest import ROOT

pytest.importorskip("torch")
DRIVER = ROOT / "benchmarks" / "runtime_incidents.py"

CHECK = """\
import sys
import torch

w = torch.ones(3)
{body}
print("{verdict} {tag}", sys.argv[1])
"""
CASES = {
    # id: (header label, check body, verdict)
    "K1": ("flag TEN203 line 2", "snap = w.detach()\nw.add_(1)\nprint(float(snap.sum()))", "OK"),
    "K2": ("clean", "snap = w.detach().clone()\nw.add_(1)\nprint(float(snap.sum()))", "OK"),
    "K3": ("flag TEN401 line 1", "", "SKIP"),
}


def make_set(folder):
    (folder / "checks").mkdir(parents=True)
    blocks = []
    for case_id, (label, body, verdict) in CASES.items():
        blocks.append(f"### case {case_id}: {label} — made for this test\n```python\nx = 1\n```\n")
        (folder / "checks" / f"T_{case_id}.py").write_text(
            CHECK.format(body=body, verdict=verdict, tag=case_id), encoding="utf-8")
    (folder / "cases.md").write_text("\n".join(blocks), encoding="utf-8")
    return folder / "checks"


def drive(*args):
    return subprocess.run([sys.executable, str(DRIVER), "--device", "cpu", "--jobs", "3", *args],
                          capture_output=True, text=True, timeout=300)


def test_per_case_table_and_totals(tmp_path):
    done = drive("--checks", str(make_set(tmp_path / "set")), "--markdown")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert "| K1 | TEN203 | OK | TEN203 | found |" in lines
    assert "| K2 | clean | OK | - | silent |" in lines
    assert "| K3 | TEN401 | SKIP | - |  |" in lines
    assert "recall 1/1 labelled codes (1.000) on 1 positive cases that ran" in lines
    assert "false reports: 0 of 1 clean cases that ran" in lines
    assert "cases 3: checks OK 2, SKIP 1, FAIL 0" in lines


def test_a_blind_set_is_refused_without_counts_only(tmp_path):
    refused = drive("--checks", str(make_set(tmp_path / "blind")))
    assert refused.returncode == 2 and "--counts-only" in refused.stderr and refused.stdout == ""


@pytest.mark.slow
def test_counts_only_names_no_case(tmp_path):
    done = drive("--checks", str(make_set(tmp_path / "blind")), "--counts-only")
    assert done.returncode == 0, done.stderr
    assert "recall 1/1 labelled codes" in done.stdout and "outcomes: found 1, silent 1" in done.stdout
    assert not any(word in done.stdout for word in ("K1", "K2", "K3", "TEN203", "TEN401", "|"))
