"""Every fixture: the (line, code) pairs found equal the pairs marked, exactly, both ways."""

import pytest

from conftest import FIXTURES, expected_findings, rule_fixtures
from flake8_tensorcopy.engine import lint_source
from flake8_tensorcopy.rules import ALL_RULES


@pytest.mark.parametrize("path", rule_fixtures(), ids=lambda path: path.stem)
def test_findings_match_markers(path):
    text = path.read_text(encoding="utf-8")
    found = {(finding.line, finding.code) for finding in lint_source(text)}
    expected = expected_findings(text)
    assert sorted(found - expected) == [], "reported but not marked (false alarms)"
    assert sorted(expected - found) == [], "marked but not reported (misses)"


@pytest.mark.parametrize("rule", ALL_RULES, ids=lambda rule: rule.code)
def test_every_rule_has_a_fixture_with_flagged_and_clean_cases(rule):
    path = FIXTURES / f"{rule.code}.py"
    assert path.exists(), f"{rule.code} has no fixture"
    text = path.read_text(encoding="utf-8")
    flagged = [line for line, code in expected_findings(text) if code == rule.code]
    clean = [line for line in text.splitlines() if "# clean:" in line]
    assert len(flagged) >= 6, f"{rule.code}: only {len(flagged)} flagged cases"
    assert len(clean) >= 6, f"{rule.code}: only {len(clean)} clean look-alikes"
