"""Rule docs: every rule has the ruff-shaped page, its examples behave as the page says, and
the README lists every code."""

import re

import pytest

from conftest import ROOT
from flake8_tensorcopy.engine import lint_source
from flake8_tensorcopy.rules import ALL_RULES

SECTIONS = ["## What it does", "## Why is this bad?", "## Example", "## Use instead", "## Fix safety"]


def code_blocks(section: str):
    return re.findall(r"```python\n(.*?)```", section, flags=re.S)


def section(doc: str, heading: str) -> str:
    start = doc.index(heading) + len(heading)
    following = [doc.index(other) for other in SECTIONS if other in doc and doc.index(other) > start]
    return doc[start : min(following, default=len(doc))]


@pytest.mark.parametrize("rule", ALL_RULES, ids=lambda rule: rule.code)
def test_doc_has_every_section_in_order(rule):
    doc = rule.documentation()
    positions = [doc.find(heading) for heading in SECTIONS]
    assert -1 not in positions, f"{rule.code} doc lacks a section"
    assert positions == sorted(positions)


@pytest.mark.parametrize("rule", ALL_RULES, ids=lambda rule: rule.code)
def test_doc_example_is_flagged_and_use_instead_is_clean(rule):
    doc = rule.documentation()
    (example,) = code_blocks(section(doc, "## Example"))
    (better,) = code_blocks(section(doc, "## Use instead"))
    assert {finding.code for finding in lint_source(example)} == {rule.code}
    assert lint_source(better) == []


def test_readme_table_has_one_row_per_code_with_its_summary():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    rules_section = readme.split("\n## Rules\n", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in rules_section.splitlines() if re.match(r"\| (<a id=\"\w+\"></a>)?TEN\d{3} \|", line)]
    # the anchor is where each rule's helpUri (SARIF) and url (JSON) point
    assert rows == [f'| <a id="{rule.code.lower()}"></a>{rule.code} | {rule.summary} | {rule.fix_safety} |'
                    for rule in ALL_RULES]


def test_ci_runs_the_readme_test_command():
    readme_lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    test_command = next(line for line in readme_lines[:6] if "pytest" in line)
    ci_lines = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert test_command in ci_lines
