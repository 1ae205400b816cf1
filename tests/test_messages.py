"""A finding's "use ..." suggestion is code the fixer writes: parentheses kept, no repeated
calls, never cut mid-token (issue 16)."""

import re

import libcst as cst
import pytest

from conftest import fixture_findings, per_fixture, rule_fixtures
from flake8_tensorcopy.engine import lint_source
from flake8_tensorcopy.fixer import fix_source
from flake8_tensorcopy.fixes import bare, without_repeated_copies

# Rules whose "use ..." names the code their fix writes.
SUGGESTING = re.compile(r"TEN1\d\d|TEN2\d\d|TEN30[125]")
SHORTENED = re.compile(r" \((t|x|tensor) = '")


def _written(finding) -> str:
    return cst.Module([]).code_for_node(without_repeated_copies(bare(finding.fix.replacement)))


@pytest.mark.parametrize("path", per_fixture(rule_fixtures(), code=lambda path: path.stem))
def test_every_suggestion_is_the_code_the_fix_writes(path):
    checked = 0
    for finding in fixture_findings(path):
        if finding.fix is None or not SUGGESTING.fullmatch(finding.code) or SHORTENED.search(finding.message):
            continue
        assert f"; use {_written(finding)}" in finding.message, (finding.line, finding.message)
        checked += 1
    if SUGGESTING.fullmatch(path.stem):
        assert checked, "the fixture has no fixed finding with a suggestion to check"


def _message(source: str, code: str) -> str:
    (finding,) = [finding for finding in lint_source(source) if finding.code == code]
    return finding.message


HEADER = "import torch\n\n\ndef f(a: torch.Tensor, x: torch.Tensor, group):\n"
WEAK = " ('{}' is a tensor by weak evidence, annotated as a tensor: the fix is unsafe)"


def test_an_operator_expression_is_parenthesised_as_the_fix_writes_it():
    source = HEADER + "    return torch.tensor(a * 2 + 1)\n"
    assert _message(source, "TEN101") == (
        "torch.tensor() on tensor 'a * 2 + 1' copies it detached and warns; "
        "use (a * 2 + 1).detach().clone()" + WEAK.format("a * 2 + 1")
    )
    assert "return (a * 2 + 1).detach().clone()\n" in fix_source(source, unsafe=True).source


def test_an_already_detached_tensor_is_not_detached_twice():
    source = HEADER + "    return torch.tensor(x.detach()), x.new_tensor(x.detach())\n"
    assert _message(source, "TEN101") == (
        "torch.tensor() on tensor 'x.detach()' copies it detached and warns; use x.detach().clone()"
    )
    assert _message(source, "TEN102") == (
        "new_tensor() on tensor 'x.detach()' copies it with x's dtype and device and warns; "
        "use x.detach().to(device=x.device, dtype=x.dtype, copy=True)"
    )
    assert (
        "return x.detach().clone(), x.detach().to(device=x.device, dtype=x.dtype, copy=True)\n"
        in fix_source(source, unsafe=True).source
    )


def test_a_multi_line_argument_is_named_by_a_placeholder_not_cut():
    source = HEADER + (
        "    lr = torch.as_tensor(1.0)\n"
        "    return torch.tensor(lr.clamp(\n"
        "        group['min_lr'],\n"
        "        group['max_lr'],\n"
        "    ))\n"
    )
    assert _message(source, "TEN101") == (
        "torch.tensor() on tensor 'lr.clamp( group['min_lr'], ...' copies it "
        "detached and warns; use t.detach().clone() (t = 'lr.clamp( group['min_lr'], ...')"
    )
