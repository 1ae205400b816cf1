"""Output formats of the real script: the versioned JSON document (with each fix's edits),
SARIF (helpUri, fixes, paths under a uriBaseId), GitHub annotations, --statistics and
--explain all; every format honoured with --check, --diff and stdin."""

import json

import pytest

from conftest import ROOT
from test_cli import SAFE, SAFE_MESSAGE, copy_fixture, fixture_text, tensorcopy_fix
from flake8_tensorcopy import __version__
from flake8_tensorcopy.rules import ALL_RULES

# One finding no fix removes (TEN303) beside one with a safe fix (TEN101).
UNFIXABLE = """\
import torch


def grads():
    t = torch.ones(3)
    w = torch.ones(3, requires_grad=True)
    y = w * 2
    y.sum().backward()
    return torch.tensor(t), y.grad
"""
UNFIXABLE_FIXED = UNFIXABLE.replace("torch.tensor(t)", "t.detach().clone()")
TEN303_MESSAGE = ("y.grad is None: 'y' is not a leaf (it was computed from tensors that require grad); "
                  "call y.retain_grad() before backward() or read the leaf's .grad")


def apply_edits(text: str, rows) -> str:
    """The text with the applicable edits of ``rows`` made, last first (1-based columns)."""
    starts = [0]
    for line in text.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))
    edits = [edit for row in rows if row["fix"] and row["fix"]["applicable"] for edit in row["fix"]["edits"]]
    for edit in sorted(edits, key=lambda e: (e["line"], e["column"]), reverse=True):
        start = starts[edit["line"] - 1] + edit["column"] - 1
        end = starts[edit["end_line"] - 1] + edit["end_column"] - 1
        text = text[:start] + edit["content"] + text[end:]
    return text


# Fixtures whose fixes do not overlap: one pass of the fixer makes the golden file.
ONE_PASS = ["TEN104", "TEN201", "TEN202", "TEN204", "TEN205", "TEN206", "TEN207", "TEN208", "TEN301",
            "TEN304", "TEN305", "TEN306"]


# By default those of the whole-fixture sample (conftest.DEFAULT_RUN_FIXTURES) and the small ones
# (test_fixes checks every golden file against the fixer); every one under -m slow.
ONE_PASS_SAMPLE = ["TEN104", "TEN205", "TEN207", "TEN208", "TEN301", "TEN304"]


@pytest.mark.parametrize("codes", [pytest.param(ONE_PASS_SAMPLE, id="sample"),
                                   pytest.param(ONE_PASS, id="every", marks=pytest.mark.slow)])
def test_json_edits_applied_give_what_the_fixer_writes(tmp_path, codes):
    for code in codes:
        copy_fixture(code, tmp_path)
    run = tensorcopy_fix("--no-fix", "--unsafe-fixes", "--select", "TEN,TEN9", "--output-format", "json",
                         *[f"{c}.py" for c in codes], cwd=tmp_path)  # the goldens hold every rule's fixes
    findings = json.loads(run.stdout)["findings"]
    for code in codes:
        rows = [row for row in findings if row["path"] == f"{code}.py"]
        assert rows, code
        assert apply_edits(fixture_text(f"{code}.py"), rows) == fixture_text(f"{code}.fixed.py"), code


def test_json_edit_keeps_a_comment_inside_parentheses_indented():
    text = "import torch\n\n\ndef f(t: torch.Tensor):\n    return torch.tensor(  # keep\n        t\n    )\n"
    from flake8_tensorcopy.cli import Options, process_source
    from flake8_tensorcopy.fixer import fix_source

    result, _ = process_source("x.py", text, Options(ALL_RULES, False, "report"))
    assert apply_edits(text, result.remaining) == fix_source(text).source


def test_json_with_check_reports_the_file_as_it_is(tmp_path):
    (tmp_path / "grads.py").write_text(UNFIXABLE)
    run = tensorcopy_fix("--check", "--output-format", "json", "grads.py", cwd=tmp_path)
    document = json.loads(run.stdout)
    assert document["mode"] == "check"
    assert [(row["code"], row["line"], row["column"], row["fix"] and row["fix"]["applicable"])
            for row in document["findings"]] == [("TEN101", 9, 12, True), ("TEN303", 9, 29, None)]
    assert document["files"] == [{"path": "grads.py", "changed": True, "fixes": 1, "error": None}]
    assert run.returncode == 1
    assert (tmp_path / "grads.py").read_text() == UNFIXABLE


def test_json_with_diff_carries_the_diff(tmp_path):
    (tmp_path / "safe.py").write_text(SAFE)
    run = tensorcopy_fix("--diff", "--output-format", "json", "safe.py", cwd=tmp_path)
    (entry,) = json.loads(run.stdout)["files"]
    assert entry["diff"].splitlines()[-2:] == ["-t_copied = torch.tensor(t)", "+t_copied = t.detach().clone()"]
    assert entry["changed"] is True and run.returncode == 1


def test_json_from_stdin_in_report_and_fix_mode(tmp_path):
    report = tensorcopy_fix("--no-fix", "--output-format", "json", "-", cwd=tmp_path, stdin=SAFE.encode())
    (row,) = json.loads(report.stdout)["findings"]
    assert (row["path"], row["code"], row["message"]) == ("-", "TEN101", SAFE_MESSAGE)
    fix = tensorcopy_fix("--output-format", "json", "-", cwd=tmp_path, stdin=UNFIXABLE.encode())
    assert fix.stdout == UNFIXABLE_FIXED.encode()  # stdout stays the source
    document = json.loads(fix.stderr.decode().rsplit("\n", 2)[0])  # the summary line follows
    assert [(row["code"], row["line"]) for row in document["findings"]] == [("TEN303", 9)]
    assert fix.returncode == 1


def test_stdin_fix_mode_prints_the_findings_left_on_stderr(tmp_path):
    run = tensorcopy_fix("--stdin-filename", "pkg/grads.py", cwd=tmp_path, stdin=UNFIXABLE.encode())
    assert run.stdout == UNFIXABLE_FIXED.encode()
    assert run.stderr.decode() == f"pkg/grads.py:9:32: TEN303 {TEN303_MESSAGE}\nfixed 1 finding in 1 file; 1 left in 1 file\n"
    assert run.returncode == 1


def test_sarif_rules_help_uri_fixes_and_relative_uris(tmp_path):
    source = tmp_path / "src" / "my model.py"
    source.parent.mkdir()
    source.write_text(SAFE)
    run = tensorcopy_fix("--no-fix", "--output-format", "sarif", "src", cwd=tmp_path)
    (sarif_run,) = json.loads(run.stdout)["runs"]
    assert sarif_run["originalUriBaseIds"] == {"%SRCROOT%": {"uri": tmp_path.resolve().as_uri() + "/"}}
    rules = sarif_run["tool"]["driver"]["rules"]
    assert [rule["id"] for rule in rules] == [rule.code for rule in ALL_RULES]
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for rule in rules:
        base, anchor = rule["helpUri"].split("#")
        assert base == "https://github.com/flake8-tensorcopy/flake8-tensorcopy"
        assert f'<a id="{anchor}"></a>{rule["id"]}' in readme
    (result,) = sarif_run["results"]
    location = result["locations"][0]["physicalLocation"]
    assert location["artifactLocation"] == {"uri": "src/my%20model.py", "uriBaseId": "%SRCROOT%"}
    assert location["region"] == {"startLine": 5, "startColumn": 12, "endLine": 5, "endColumn": 27}
    (fix,) = result["fixes"]
    assert fix["artifactChanges"] == [{
        "artifactLocation": {"uri": "src/my%20model.py", "uriBaseId": "%SRCROOT%"},
        "replacements": [{"deletedRegion": location["region"], "insertedContent": {"text": "t.detach().clone()"}}],
    }]
    assert run.returncode == 1


def test_github_annotations(tmp_path):
    (tmp_path / "grads.py").write_text(UNFIXABLE)
    run = tensorcopy_fix("--no-fix", "--output-format", "github", "grads.py", cwd=tmp_path)
    message = "torch.tensor() on tensor 't' copies it detached and warns; use t.detach().clone()"
    assert run.stdout.splitlines() == [
        f"::warning file=grads.py,line=9,col=12,endLine=9,endColumn=27,title=TEN101::{message}",
        f"::warning file=grads.py,line=9,col=29,endLine=9,endColumn=35,title=TEN303::{TEN303_MESSAGE}",
    ]
    assert run.returncode == 1


def test_statistics_count_per_code_and_fixable(tmp_path):
    copy_fixture("TEN101", tmp_path)
    (tmp_path / "grads.py").write_text(UNFIXABLE)
    run = tensorcopy_fix("--no-fix", "--statistics", "TEN101.py", "grads.py", cwd=tmp_path)
    listing = tensorcopy_fix("--no-fix", "--output-format", "json", "TEN101.py", "grads.py", cwd=tmp_path)
    rows = json.loads(listing.stdout)["findings"]
    ten101 = [row for row in rows if row["code"] == "TEN101"]
    fixable = sum(1 for row in ten101 if row["fix"]["applicable"])
    unsafe = len(ten101) - fixable
    summaries = {rule.code: rule.summary for rule in ALL_RULES}
    codes = sorted({row["code"] for row in rows})
    assert codes[0] == "TEN101" and "TEN303" in codes
    lines = run.stdout.splitlines()
    assert unsafe > 0
    fixes = f"{fixable} fixable, {unsafe} unsafe"
    assert lines[0] == f"{len(ten101):>5}  TEN101  {fixes:<20}  {summaries['TEN101']}"
    assert f"    1  TEN303  {'no fix':<20}  {summaries['TEN303']}" in lines
    assert len(lines) == len(codes)
    as_json = tensorcopy_fix("--no-fix", "--statistics", "--output-format", "json", "grads.py", cwd=tmp_path)
    document = json.loads(as_json.stdout)
    assert (document["schema_version"], document["mode"]) == (1, "report")
    assert document["statistics"] == [
        {"code": "TEN101", "count": 1, "fixable": 1, "unsafe": 0, "summary": summaries["TEN101"]},
        {"code": "TEN303", "count": 1, "fixable": 0, "unsafe": 0, "summary": summaries["TEN303"]},
    ]


def test_explain_all_lists_every_rule(tmp_path):
    run = tensorcopy_fix("--explain", "all", cwd=tmp_path)
    assert run.returncode == 0
    assert run.stdout.splitlines() == [f"{rule.code}  {rule.fix_safety:<6}  {rule.summary}" for rule in ALL_RULES]
    as_json = json.loads(tensorcopy_fix("--explain", "all", "--output-format", "json", cwd=tmp_path).stdout)
    assert [entry["code"] for entry in as_json] == [rule.code for rule in ALL_RULES]


def test_json_schema_is_documented_in_the_readme(tmp_path):
    (tmp_path / "safe.py").write_text(SAFE)
    document = json.loads(tensorcopy_fix("--no-fix", "--output-format", "json", "safe.py", cwd=tmp_path).stdout)
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("### JSON output", 1)[1].split("\n## ", 1)[0]
    (finding,) = document["findings"]
    fields = (set(document) | set(document["tool"]) | set(finding) | set(finding["fix"])
              | set(finding["fix"]["edits"][0]) | set(document["files"][0]))
    for name in fields:
        assert f"`{name}`" in section, name
    assert document["tool"] == {"name": "tensorcopy-fix", "version": __version__}
    assert f"`schema_version`: {document['schema_version']}" in section
