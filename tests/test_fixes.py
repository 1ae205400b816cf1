"""Fixes: the golden files, idempotence, safety classes, noqa, comments and spelling.

``fixtures/TENnnn.fixed.py`` is exactly what ``tensorcopy-fix --unsafe-fixes`` writes for
``fixtures/TENnnn.py``. Regenerate after changing a fix:

    for f in fixtures/TEN[0-9][0-9][0-9].py; do
        tensorcopy-fix --unsafe-fixes - < "$f" > "${f%.py}.fixed.py"; done   # (not TEN303: no fix)
"""

import pytest

from conftest import FIXTURES, fixture_findings, rule_fixtures
from flake8_tensorcopy.engine import lint_source
from flake8_tensorcopy.fixer import fix_source
from flake8_tensorcopy.rules import ALL_RULES, RULES_BY_CODE

FIXABLE = [rule for rule in ALL_RULES if rule.fix_safety != "none"]


def no_fix_lines(text: str):
    """Lines whose marker says the finding has no fix."""
    return {number for number, line in enumerate(text.splitlines(), start=1) if "(no fix:" in line}


@pytest.mark.parametrize("rule", FIXABLE, ids=lambda rule: rule.code)
def test_golden_file_is_what_the_fixer_writes(rule):
    source = (FIXTURES / f"{rule.code}.py").read_text(encoding="utf-8")
    golden = (FIXTURES / f"{rule.code}.fixed.py").read_text(encoding="utf-8")
    assert fix_source(source, unsafe=True).source == golden


@pytest.mark.parametrize("rule", FIXABLE, ids=lambda rule: rule.code)
def test_golden_file_keeps_only_the_findings_without_a_fix(rule):
    golden = (FIXTURES / f"{rule.code}.fixed.py").read_text(encoding="utf-8")
    left = {finding.line for finding in lint_source(golden) if finding.code == rule.code}
    assert left == no_fix_lines(golden)


@pytest.mark.parametrize("rule", FIXABLE, ids=lambda rule: rule.code)
def test_fixing_the_golden_file_again_changes_nothing(rule):
    golden = (FIXTURES / f"{rule.code}.fixed.py").read_text(encoding="utf-8")
    result = fix_source(golden, unsafe=True)
    assert result.source == golden
    assert not result.applied


def test_rules_without_a_fix_have_no_golden_file():
    assert {path.name.split(".")[0] for path in FIXTURES.glob("*.fixed.py")} == {rule.code for rule in FIXABLE}


@pytest.mark.parametrize("path", rule_fixtures(), ids=lambda path: path.stem)
def test_every_fix_has_its_rule_safety(path):
    for finding in fixture_findings(path):
        declared = RULES_BY_CODE[finding.code].fix_safety
        if finding.fix is None:
            continue
        assert declared != "none"
        assert finding.fix.safe is (declared == "safe"), finding


def test_safe_mode_applies_only_safe_fixes():
    source = (
        "import torch\n"
        "def f(t: torch.Tensor):\n"
        "    a = torch.tensor(t)\n"
        "    b = torch.Tensor(t)\n"
        "    return a, b\n"
    )
    result = fix_source(source)
    assert result.source == source.replace("torch.tensor(t)", "t.detach().clone()")
    assert [finding.code for finding in result.remaining] == ["TEN103"]


def test_noqa_line_is_not_fixed():
    source = (
        "import torch\n"
        "def f(t: torch.Tensor):\n"
        "    a = torch.tensor(t)  # noqa: TEN101\n"
        "    b = torch.tensor(t)  # noqa\n"
        "    c = torch.tensor(t)  # noqa: E501\n"
        "    return a, b, c\n"
    )
    expected = source.replace("c = torch.tensor(t)", "c = t.detach().clone()")
    assert fix_source(source).source == expected


def test_fix_keeps_comments_and_surrounding_formatting():
    source = (
        "import torch\n"
        "def f(t: torch.Tensor):\n"
        "    a = torch.tensor(  # why we copy\n"
        "        t,\n"
        "        dtype=torch.float64,  # wide\n"
        "    )\n"
        "    return (torch.tensor(t))  # trailing\n"
    )
    assert fix_source(source).source == (
        "import torch\n"
        "def f(t: torch.Tensor):\n"
        "    a = (  # why we copy\n"
        "        # wide\n"
        "        t.detach().clone().to(dtype=torch.float64)\n"
        "    )\n"
        "    return (t.detach().clone())  # trailing\n"
    )


def test_overlapping_fixes_settle_in_passes():
    source = "import torch\ndef f(w: torch.Tensor, x: torch.Tensor):\n    return torch.tensor(x.new_tensor(w))\n"
    result = fix_source(source)
    assert result.source.splitlines()[-1] == (
        "    return w.detach().to(device=x.device, dtype=x.dtype, copy=True).detach().clone()"
    )
    assert sorted(finding.code for finding in result.applied) == ["TEN101", "TEN102"]


@pytest.mark.parametrize(
    "before, after",
    [
        ("import torch as th\ndef f(a: th.Tensor):\n    return th.tensor([a, a])\n",
         "import torch as th\ndef f(a: th.Tensor):\n    return th.stack([a, a])\n"),
        ("import torch as th\nfrom torch import tensor as T\ndef f(a: th.Tensor):\n    return T([a, a])\n",
         "import torch as th\nfrom torch import tensor as T\ndef f(a: th.Tensor):\n    return th.stack([a, a])\n"),
        # no torch module in the file: the fix would need an import, so none is offered
        ("from torch import Tensor, tensor as T\ndef f(a: Tensor):\n    return T([a, a])\n",
         "from torch import Tensor, tensor as T\ndef f(a: Tensor):\n    return T([a, a])\n"),
        ("import torch\ndef f(a: torch.Tensor, b: torch.Tensor):\n    return torch.tensor((a + b, b))\n",
         "import torch\ndef f(a: torch.Tensor, b: torch.Tensor):\n    return torch.stack((a + b, b))\n"),
    ],
)
def test_fix_spells_torch_as_the_file_does(before, after):
    assert fix_source(before, unsafe=True).source == after


def test_keyword_forms_of_torch_tensor():
    source = (
        "import torch\ndef f(t: torch.Tensor):\n"
        "    return torch.tensor(t, dtype=torch.float16, device='cpu', requires_grad=True)\n"
    )
    assert fix_source(source).source.splitlines()[-1] == (
        "    return t.detach().clone().to(dtype=torch.float16, device='cpu').requires_grad_(True)"
    )


def test_unknown_keyword_leaves_the_finding_unfixed():
    source = "import torch\ndef f(t: torch.Tensor):\n    return torch.tensor(t, pin_memory=True)\n"
    result = fix_source(source)
    assert result.source == source
    assert [finding.code for finding in result.remaining] == ["TEN101"]


def test_data_as_an_augmented_assignment_target_is_reported_without_a_fix():
    source = "from torch import nn\ndef f(p: nn.Parameter, d):\n    p.data += d\n"
    result = fix_source(source, unsafe=True)
    assert result.source == source
    assert [(finding.code, finding.fix) for finding in result.remaining] == [("TEN301", None)]


def test_a_fix_that_would_not_parse_is_dropped_not_written(monkeypatch):
    from flake8_tensorcopy.rules import copying

    broken = copying.CloneThenDetach.check_call

    def check_call(self, call, analysis):
        broken(self, call, analysis)
        report = analysis._reports.get((self.code, id(call)))
        if report is not None:  # make the fix invalid Python: ``x.clone().detach()`` -> ``lambda``
            import libcst as cst

            report.fix.replacement = cst.Name("lambda")

    monkeypatch.setattr(copying.CloneThenDetach, "check_call", check_call)
    source = "import torch\ndef f(t: torch.Tensor):\n    return t.clone().detach(), torch.tensor(t)\n"
    result = fix_source(source)
    assert result.source == "import torch\ndef f(t: torch.Tensor):\n    return t.clone().detach(), t.detach().clone()\n"
    assert [finding.code for finding in result.remaining] == ["TEN104"]
    assert not result.unstable
