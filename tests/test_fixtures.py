"""Every fixture: the findings equal the markers, both ways, with column and message pinned."""

import pytest

from conftest import FIXTURES, expectations, expected_findings, fixture_findings, mismatches, per_fixture, rule_fixtures
from flake8_tensorcopy.rules import ALL_RULES


@pytest.mark.parametrize("path", per_fixture(rule_fixtures(), code=lambda path: path.stem))
def test_findings_match_markers(path):
    text = path.read_text(encoding="utf-8")
    found = [(finding.line, finding.code, finding.col + 1, finding.message) for finding in fixture_findings(path)]
    assert mismatches(found, expectations(text)) == []


@pytest.mark.parametrize("path", rule_fixtures(), ids=lambda path: path.stem)
def test_every_marker_pins_column_and_message(path):
    """``# expect: TEN203`` alone passes a finding at any column with any wording."""
    bare = [f"line {mark.line}: {mark.code}" for mark in expectations(path.read_text(encoding="utf-8"))
            if not mark.pinned]
    assert bare == [], "pin them with: python scripts/pin_fixture_markers.py (then check the diff by eye)"


@pytest.mark.parametrize("rule", ALL_RULES, ids=lambda rule: rule.code)
def test_every_rule_has_a_fixture_with_flagged_and_clean_cases(rule):
    path = FIXTURES / f"{rule.code}.py"
    assert path.exists(), f"{rule.code} has no fixture"
    text = path.read_text(encoding="utf-8")
    flagged = [line for line, code in expected_findings(text) if code == rule.code]
    clean = [line for line in text.splitlines() if "# clean:" in line]
    assert len(flagged) >= 6, f"{rule.code}: only {len(flagged)} flagged cases"
    assert len(clean) >= 6, f"{rule.code}: only {len(clean)} clean look-alikes"
