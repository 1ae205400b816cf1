"""The premise harness under pytest: every rule's premise on every device (CUDA and MPS run
for real when present, and are skipped with the reason otherwise)."""

import subprocess
import sys

import pytest

from flake8_tensorcopy.rules import ALL_RULES

torch = pytest.importorskip("torch")
harness = pytest.importorskip("flake8_tensorcopy.premises.harness")

DEVICES = [
    pytest.param(device, marks=pytest.mark.skipif(reason is not None, reason=reason or ""), id=device)
    for device, reason in harness.devices("all").items()
]


def test_every_rule_has_a_premise():
    assert harness.rules_without_premise() == []
    assert harness.available_codes() == [rule.code for rule in ALL_RULES]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("code", [rule.code for rule in ALL_RULES])
def test_premise_holds(code, device):
    verdict = harness.check(code, device)
    assert verdict.hazard_seen, f"{code} on {device}: the flagged code does not show the hazard"
    if verdict.fix_removes_it is not None:
        assert verdict.fix_removes_it, f"{code} on {device}: the fixed code still shows it ({verdict.detail})"
    assert verdict.values_equal is not False, f"{code} on {device}: the fix changes the values"


@pytest.mark.parametrize("device", DEVICES)
def test_an_annotation_alone_admits_a_list_that_the_fix_breaks(device):
    admitted = harness.check_admitted("TEN101", device)
    assert list(admitted.broken) == ["list"]
    assert "AttributeError" in admitted.broken["list"]
    assert admitted.fix_safe is False and admitted.holds  # so the fix is rightly unsafe


@pytest.mark.parametrize("device", DEVICES)
def test_the_stack_fix_keeps_values_and_shape_for_every_rank_it_admits(device):
    admitted = harness.check_admitted("TEN106", device)
    assert admitted.fix_safe is False
    assert admitted.broken == {}


def test_command_prints_the_table_and_reports_skipped_devices():
    result = subprocess.run(
        [sys.executable, "-m", "flake8_tensorcopy.premises.command", "--device", "all", "--rule", "TEN203"],
        capture_output=True, text=True,
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "| rule | device | torch | hazard seen | fix removes it | values equal | verdict |"
    assert lines[2].startswith(f"| TEN203 | cpu | {torch.__version__} | yes | yes |")
    if not torch.cuda.is_available():
        assert "skipped cuda: no CUDA device (torch.cuda.is_available() is False)" in lines


def test_command_without_torch_says_how_to_install(tmp_path):
    blocker = tmp_path / "torch.py"
    blocker.write_text("raise ImportError('blocked for this test')\n")
    result = subprocess.run(
        [sys.executable, "-c", f"import sys; sys.path.insert(0, {str(tmp_path)!r}); "
         "from flake8_tensorcopy.premises.command import main; sys.exit(main([]))"],
        capture_output=True, text=True,
    )
    assert result.returncode == 2
    assert "pip install 'flake8-tensorcopy[premises]'" in result.stderr
    assert "Traceback" not in result.stderr
