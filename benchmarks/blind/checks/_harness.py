"""Shared driver for the blind checks: runs a case's program exactly as cases.md holds it.

Each check loads the case's code from cases.md (so the check can never drift from the case),
executes it into a fresh namespace and asserts the labelled behaviour on the requested device.
"""
import pathlib
import re
import sys

CASES = pathlib.Path(__file__).resolve().parent.parent / "cases.md"


def case_source(case_id):
    """The program of one case, as the scorer hands it to flake8."""
    text = CASES.read_text(encoding="utf-8")
    match = re.search(rf"^### case {re.escape(case_id)}:.*?\n```python\n(.*?)```", text, re.S | re.M)
    if match is None:
        raise SystemExit(f"no case {case_id} in {CASES}")
    return match.group(1)


def load(case_id):
    """Execute the case program and return its namespace (functions, classes, constants)."""
    namespace = {"__name__": f"blind_case_{case_id}"}
    exec(compile(case_source(case_id), f"case_{case_id}.py", "exec"), namespace)
    return namespace


def run(case_id, check, cuda_only=False):
    """Run check(device) for the device named on the command line; print OK or SKIP."""
    device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    if device not in ("cpu", "cuda"):
        raise SystemExit(f"usage: python {case_id}.py cpu|cuda")
    import torch

    if (device == "cuda" and not torch.cuda.is_available()) or (cuda_only and device != "cuda"):
        print(f"SKIP {case_id} {device}")
        return
    torch.manual_seed(0)
    check(device)
    print(f"OK {case_id} {device}")
