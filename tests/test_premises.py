"""The premise harness under pytest: every rule's premise on every device (CUDA and MPS run
for real when present, and are skipped with the reason otherwise), the harness's own logic
(devices a hazard applies to, racing hazards) on fake scenarios, and the command's exits."""

import os
import re
import subprocess
import sys
from datetime import datetime, timezone

import pytest

from conftest import ROOT
from flake8_tensorcopy.rules import ALL_RULES

torch = pytest.importorskip("torch")
harness = pytest.importorskip("flake8_tensorcopy.premises.harness")
command = pytest.importorskip("flake8_tensorcopy.premises.command")

DEVICES = [
    pytest.param(device, marks=pytest.mark.skipif(reason is not None, reason=reason or ""), id=device)
    for device, reason in harness.devices("all").items()
]
# the scenarios whose hazard is in a value: the flagged code, kept in place of the fix, computes
# something other than what the author meant, so "values equal" must say NO for it
VALUE_HAZARDS = ["TEN103", "TEN201", "TEN202", "TEN203", "TEN204", "TEN205", "TEN206", "TEN207", "TEN208", "TEN304"]
ABSENT_DEVICE = next((device for device, reason in harness.devices("all").items() if reason), None)


def run_command(*args, **options):
    return subprocess.run(
        [sys.executable, "-m", "flake8_tensorcopy.premises.command", *args], capture_output=True, text=True, **options
    )


def test_every_rule_has_a_premise():
    assert harness.rules_without_premise() == []
    assert harness.available_codes() == [rule.code for rule in ALL_RULES]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("code", [rule.code for rule in ALL_RULES])
def test_premise_holds(code, device):
    verdict = harness.check(code, device)
    if not verdict.applicable:
        pytest.skip(f"{code} is not applicable on {device}: {verdict.detail}")
    assert verdict.hazard_seen, f"{code} on {device}: the flagged code does not show the hazard"
    if verdict.fix_removes_it is not None:
        assert verdict.fix_removes_it, f"{code} on {device}: the fixed code still shows it ({verdict.detail})"
    assert verdict.values_equal is not False, f"{code} on {device}: the fix changes the values"
    assert verdict.verdict == "holds"


def test_ten106_hazard_is_the_graph_cut_with_or_without_the_warning():
    """CUDA cuts the graph without the CPU's warning (H100), and the CPU warns once per process:
    the premise must see the cut alone."""
    scenario = harness.load("TEN106")
    cut = harness._run(scenario.bad, "cpu").result
    assert (cut["elements_require_grad"], cut["has_grad_fn"], cut["requires_grad"]) == (True, False, False)
    assert scenario.bad["hazard"](harness.Outcome(cut, None, []), "cuda")
    kept = dict(cut, has_grad_fn=True, requires_grad=True)
    warned = ["Converting a tensor with requires_grad=True to a scalar may lead to unexpected behavior."]
    assert not scenario.bad["hazard"](harness.Outcome(kept, None, warned), "cpu")


@pytest.mark.parametrize("code", VALUE_HAZARDS)
def test_values_equal_says_no_when_the_flagged_code_stands_in_for_the_fix(code):
    scenario = harness.load(code)
    assert scenario.bad.get("MEANT"), f"{code}: compare what the fix changes with the value meant"
    unfixed = harness.Scenario(code, scenario.bad, scenario.bad)
    assert harness.judge(unfixed, "cpu").values_equal is False
    assert harness.judge(scenario, "cpu").values_equal is True


FAKE_RACE = '''
import itertools

DEVICES = ("cpu",)
TRIES = 5
ELEMENTS = 1 << 20
LATE_ON_TRIES = {late}
tries = itertools.count()


def scenario(device):
    return {{"stale": next(tries) in LATE_ON_TRIES, "value": 1.0, "meant": 1.0}}


def hazard(outcome, device):
    return outcome.result["stale"]


MEANT = {{"value": "meant"}}
'''


def fake(code="TEN999", late=(), fixed_late=(), **settings):
    """A scenario whose forms show the hazard on the given tries only (a race won or lost)."""
    bad = harness._load(FAKE_RACE.format(late=set(late)), "bad")
    fixed = harness._load(FAKE_RACE.format(late=set(fixed_late)), "fixed")
    bad.update(settings)
    return harness.Scenario(code, bad, fixed), bad, fixed


def test_a_race_counts_when_lost_once_and_the_fix_must_never_lose_it():
    scenario, bad, fixed = fake(late={3})
    verdict = harness.judge(scenario, "cpu")
    assert (verdict.hazard_seen, verdict.fix_removes_it, verdict.values_equal) == (True, True, True)
    assert verdict.verdict == "holds"
    assert verdict.detail == "hazard seen in 1 of 5 tries; fixed form in 0 of 5"
    assert next(bad["tries"]) == next(fixed["tries"]) == 5  # every try was run, on both forms


def test_a_fix_that_loses_the_race_once_fails():
    verdict = harness.judge(fake(late={0, 1, 2, 3, 4}, fixed_late={4})[0], "cpu")
    assert (verdict.hazard_seen, verdict.fix_removes_it, verdict.verdict) == (True, False, "FAILS")
    assert verdict.detail == "hazard seen in 5 of 5 tries; fixed form in 1 of 5"


def test_a_race_never_lost_is_a_hazard_not_seen():
    verdict = harness.judge(fake()[0], "cpu")
    assert (verdict.hazard_seen, verdict.failed) == (False, True)


def test_a_hazard_declared_for_other_devices_is_not_applicable_and_not_run():
    scenario, bad, _ = fake(late={0}, DEVICES=("cuda",))
    verdict = harness.judge(scenario, "cpu")
    assert (verdict.verdict, verdict.holds, verdict.failed, verdict.hazard_seen) == ("not applicable", False, False, None)
    assert verdict.detail == "the hazard exists only on cuda"
    assert next(bad["tries"]) == 0
    assert command.table([verdict]).splitlines()[2] == (
        f"| TEN999 | cpu | {torch.__version__} | n/a | n/a | n/a | not applicable |"
    )


@pytest.mark.parametrize(
    "settings, complaint",
    [
        ({"ELEMENTS": 1000}, "ELEMENTS >= 1048576"),
        ({"TRIES": 1}, "TRIES >= 2"),
        ({"DEVICES": ("tpu",)}, "unknown device types ['tpu']"),
    ],
)
def test_a_race_that_could_be_won_by_chance_is_a_scenario_error(settings, complaint):
    with pytest.raises(harness.ScenarioError, match=re.escape(complaint)):
        fake(**settings)


def test_a_race_must_name_its_devices():
    bad = harness._load(FAKE_RACE.format(late=set()).replace('DEVICES = ("cpu",)', ""), "bad")
    with pytest.raises(harness.ScenarioError, match="must name the DEVICES"):
        harness.Scenario("TEN999", bad, bad)


def test_only_not_applicable_premises_exit_3(monkeypatch, capsys):
    monkeypatch.setattr(harness, "available_codes", lambda: ["TEN999"])
    monkeypatch.setattr(harness, "load", lambda code: fake(code, late={0}, DEVICES=("cuda",))[0])
    assert command.main(["--device", "cpu", "--rule", "TEN999"]) == 3
    out, err = capsys.readouterr()
    assert "| not applicable |" in out
    assert "no selected premise applies to the devices present" in err


@pytest.mark.skipif(ABSENT_DEVICE is None, reason="every device type is present")
def test_a_requested_device_that_is_absent_exits_3_and_says_why(capsys):
    assert command.main(["--device", ABSENT_DEVICE, "--rule", "TEN203"]) == 3
    out, err = capsys.readouterr()
    assert out == ""
    assert err == f"tensorcopy-premises: cannot run on {ABSENT_DEVICE}: {harness.devices('all')[ABSENT_DEVICE]}\n"


def test_exit_codes_are_in_the_help_and_the_readme(capsys):
    with pytest.raises(SystemExit) as exited:
        command.main(["--help"])
    assert exited.value.code == 0
    assert command.EXIT_CODES in capsys.readouterr().out
    assert command.EXIT_CODES in (ROOT / "README.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("device", DEVICES)
def test_an_annotation_alone_admits_a_list_that_the_fix_breaks(device):
    admitted = harness.check_admitted("TEN101", device)
    assert list(admitted.broken) == ["list"]
    assert "AttributeError" in admitted.broken["list"]
    assert admitted.fix_safe is False and admitted.holds  # so the fix is rightly unsafe


# (flagged, fixed) device types of TEN106's results: torch.tensor([...]) without device= builds on
# the CPU, torch.stack keeps the elements' device (on CUDA a move: H100, measured; the fix's doc says it)
STACK_RESULT_DEVICES = {"cpu": ("cpu", "cpu"), "cuda": ("cpu", "cuda"), "mps": ("cpu", "mps")}
STACK_ADMITTED_TENSORS = ("0-d", "shape (1,)", "matrix")  # the list: the flagged form raises too


def assert_stack_fix_admits_every_rank(admitted, device_type: str) -> None:
    assert admitted.fix_safe is False
    assert admitted.broken == {}  # values, dtype and shape: the same on every device
    assert admitted.devices == {name: STACK_RESULT_DEVICES[device_type] for name in STACK_ADMITTED_TENSORS}


@pytest.mark.parametrize("device", DEVICES)
def test_an_item_of_a_tuple_holding_one_tensor_admits_a_list_that_the_fix_breaks(device):
    admitted = harness.check_admitted("TEN101", device, "ADMITTED_ITEMS")
    assert list(admitted.broken) == ["list"]
    assert "AttributeError" in admitted.broken["list"]
    assert admitted.fix_safe is False and admitted.holds


@pytest.mark.parametrize("device", DEVICES)
def test_the_stack_fix_keeps_values_and_shape_for_every_rank_it_admits(device):
    assert_stack_fix_admits_every_rank(harness.check_admitted("TEN106", device), torch.device(device).type)


class OnFakeCuda(torch.Tensor):
    """A CPU tensor that says it is on CUDA: ``torch.tensor([...])`` reads its values into a plain
    CPU tensor, ``torch.stack`` keeps the subclass, as CUDA elements stay on CUDA."""

    @property
    def device(self):
        return torch.device("cuda")


def test_the_stack_fix_on_a_fake_cuda_device_is_judged_as_on_cuda(monkeypatch):
    """The CUDA case's expectations, checked here without a GPU: elements that report CUDA give a
    CPU result when flagged and a CUDA one when fixed, with the same values and shape."""
    load = harness._load

    def on_fake_cuda(source, name):
        namespace = load(source, name)
        if "admitted_values" in namespace:
            values = namespace["admitted_values"]
            namespace["admitted_values"] = lambda device: {
                name: value.as_subclass(OnFakeCuda) if isinstance(value, torch.Tensor) else value
                for name, value in values(device).items()}
        return namespace

    monkeypatch.setattr(harness, "_load", on_fake_cuda)
    assert_stack_fix_admits_every_rank(harness.check_admitted("TEN106", "cpu"), "cuda")


def test_the_clone_of_an_overlapping_source_changes_what_the_cpu_computes_so_it_is_unsafe():
    """Proven a tensor by a use, and still: on the CPU several rows and a strided slice shift
    without raising, and the clone computes other (the intended) values; one row raises."""
    admitted = harness.check_admitted("TEN210", "cpu")
    assert admitted.broken == {"rows": "the fixed form computes other values",
                               "strided": "the fixed form computes other values"}
    assert admitted.fix_safe is False and admitted.holds


def test_command_prints_the_table_and_reports_skipped_devices(capsys):
    assert command.main(["--device", "all", "--rule", "TEN203"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "| rule | device | torch | hazard seen | fix removes it | values equal | verdict |"
    assert lines[2] == f"| TEN203 | cpu | {torch.__version__} | yes | yes | yes | holds |"
    if not torch.cuda.is_available():
        assert "skipped cuda: no CUDA device (torch.cuda.is_available() is False)" in lines


def test_markdown_names_the_device_the_torch_version_and_the_date(capsys):
    assert command.main(["--device", "cpu", "--rule", "TEN203", "--rule", "TEN303", "--markdown"]) == 0
    lines = capsys.readouterr().out.splitlines()
    today = datetime.now(timezone.utc).strftime("%Y-%m-%d")
    assert lines[0] == f"## cpu: {harness.device_name('cpu')}"
    assert re.fullmatch(
        rf"torch {re.escape(torch.__version__)}, Python [\d.]+, {today} \d\d:\d\d UTC: 2 of 2 applicable premises hold\.",
        lines[2],
    )
    assert lines[7] == f"| TEN303 | cpu | {torch.__version__} | yes | n/a | n/a | holds |"


def test_json_into_a_closed_pipe_exits_quietly():
    """``tensorcopy-premises --json | head``: the reader is gone before we write."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        result = subprocess.run(
            [sys.executable, "-m", "flake8_tensorcopy.premises.command", "--json", "--device", "cpu", "--rule", "TEN203"],
            stdout=write_end, stderr=subprocess.PIPE, text=True,
        )
    finally:
        os.close(write_end)
    assert result.stderr == ""
    assert result.returncode == 0


def blocked(tmp_path, module):
    """An environment in which ``import module`` fails as it does where it is not installed."""
    (tmp_path / f"{module}.py").write_text(f'raise ModuleNotFoundError("No module named {module!r}", name={module!r})\n')
    return dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(tmp_path), os.environ.get("PYTHONPATH")])))


@pytest.mark.parametrize("module", ["torch", "numpy"])
def test_command_without_a_requirement_says_what_is_missing_and_how_to_install(tmp_path, module):
    result = run_command("--device", "cpu", "--rule", "TEN203", env=blocked(tmp_path, module))
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr == (
        f"tensorcopy-premises needs torch and numpy; missing: {module}. The linter itself never imports them. "
        "Install the extra:\n    pip install '.[premises]' in a checkout, or "
        "pip install 'flake8-tensorcopy[premises] @ git+https://github.com/flake8-tensorcopy/flake8-tensorcopy'\n"
    )


def test_keep_busy_queues_matmuls_that_do_not_overflow():
    from flake8_tensorcopy.premises.racing import keep_busy

    product = keep_busy("cpu", rounds=3, size=8)
    assert product.shape == (8, 8)
    assert torch.allclose(product, torch.full((8, 8), 1 / 8))


def test_a_rule_without_a_fix_keeps_the_count_of_tries_in_its_detail():
    bad = fake(late={2})[1]
    verdict = harness.judge(harness.Scenario("TEN999", bad, None), "cpu")
    assert (verdict.verdict, verdict.fix_removes_it, verdict.values_equal) == ("holds", None, None)
    assert verdict.detail == "hazard seen in 1 of 5 tries; no fix: the message says what to do"
