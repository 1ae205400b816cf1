"""Trust on first contact (issue #22): what a first ``tensorcopy-fix .`` or ``--statistics`` in
a real project must not write, and the ruff conventions a user brings along (file-level noqa,
per-file-ignores, extend-select/extend-ignore, --explain of a family, sorted findings). Real
directories in ``tmp_path``, the real CLI."""

import json

from test_cli import SAFE, SAFE_FIXED, copy_fixture, fixture_text, report_lines, tensorcopy_fix
from test_notebooks import BACKUP_MESSAGE, COPY_MESSAGE, TRAINING, as_jupyter_writes

from flake8_tensorcopy.rules import ALL_RULES, DEFAULT_RULES, RULES_BY_CODE

# where installed and built code lives in a project: never the user's to rewrite
THIRD_PARTY = [".venv/lib/python3.11/site-packages/pkg/mod.py", "venv/lib/mod.py",
               "env/lib/python3.11/site-packages/pkg/mod.py", "dist/pkg/mod.py", "build/lib/pkg/mod.py",
               "__pypackages__/3.11/lib/pkg/mod.py", "_build/mod.py", "buck-out/mod.py", ".tox/py311/mod.py",
               ".git/hooks/mod.py", "node_modules/pkg/mod.py"]


def _write(root, names, text=SAFE):
    for name in names:
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def test_fixing_a_project_leaves_virtualenvs_site_packages_and_build_output_alone(tmp_path):
    _write(tmp_path, THIRD_PARTY + ["src/pkg/model.py", "tests/test_model.py"])
    run = tensorcopy_fix(".", cwd=tmp_path)
    assert (run.returncode, run.stderr) == (0, "fixed 2 findings in 2 files; 0 left\n")
    assert (tmp_path / "src/pkg/model.py").read_text() == (tmp_path / "tests/test_model.py").read_text() == SAFE_FIXED
    for name in THIRD_PARTY:
        assert (tmp_path / name).read_text() == SAFE, name


def test_gitignore_files_above_the_directory_given_are_honoured_with_negations(tmp_path):
    (tmp_path / ".git").mkdir()  # the repository's root: .gitignore files from here down count
    (tmp_path / ".gitignore").write_text("gen_*.py\n!gen_kept.py\n")
    (tmp_path / "pkg" / "sub").mkdir(parents=True)
    (tmp_path / "pkg" / "sub" / ".gitignore").write_text("!gen_local.py\n")
    names = ["pkg/gen_a.py", "pkg/gen_kept.py", "pkg/sub/gen_b.py", "pkg/sub/gen_local.py", "pkg/model.py"]
    _write(tmp_path, names)
    run = tensorcopy_fix("--check", "pkg", cwd=tmp_path / "pkg" / "..")
    assert sorted(line.split(" in ", 1)[1] for line in run.stdout.splitlines()) == [
        "pkg/gen_kept.py", "pkg/model.py", "pkg/sub/gen_local.py"]
    inside = tensorcopy_fix("--check", ".", cwd=tmp_path / "pkg" / "sub")
    assert inside.stdout == "would fix 1 finding in gen_local.py\n"
    (tmp_path / ".git").rmdir()  # outside a repository git reads no .gitignore above: neither do we
    outside = tensorcopy_fix("--check", ".", cwd=tmp_path / "pkg")
    assert outside.stdout.count("would fix") == 5


def test_every_path_given_excluded_is_a_warning_and_nothing_is_written(tmp_path):
    _write(tmp_path, THIRD_PARTY[:2])
    run = tensorcopy_fix(".venv", "venv/lib/mod.py", cwd=tmp_path)
    assert (run.returncode, run.stdout) == (0, "")
    assert run.stderr == ("tensorcopy-fix: warning: every path given is excluded (see exclude, extend-exclude; "
                          "--no-force-exclude processes them anyway)\nfixed 0 findings in 0 files; 0 left\n")
    assert (tmp_path / THIRD_PARTY[0]).read_text() == (tmp_path / THIRD_PARTY[1]).read_text() == SAFE
    (tmp_path / "docs").mkdir()
    empty = tensorcopy_fix("-q", "docs", cwd=tmp_path)
    assert empty.stderr == "tensorcopy-fix: warning: no Python files or notebooks found under the paths given\n"


def test_statistics_only_count_and_say_how_many_wait_for_unsafe_fixes(tmp_path):
    (tmp_path / "safe.py").write_text(SAFE)
    copy_fixture("TEN207", tmp_path)
    before = {name: (tmp_path / name).read_bytes() for name in ("safe.py", "TEN207.py")}
    run = tensorcopy_fix("--statistics", ".", cwd=tmp_path)
    assert {name: (tmp_path / name).read_bytes() for name in before} == before
    ten207 = [f for f in report_lines("TEN207.py", fixture_text("TEN207.py")) if ": TEN207 " in f]
    assert len(ten207) > 1
    assert f"{len(ten207):>5}  TEN207  {f'{len(ten207)} unsafe':<20}  {RULES_BY_CODE['TEN207'].summary}" in (
        run.stdout.splitlines())
    assert f"    1  TEN101  {'1 fixable':<20}  {RULES_BY_CODE['TEN101'].summary}" in run.stdout.splitlines()
    assert run.returncode == 1
    document = json.loads(tensorcopy_fix("--statistics", "--output-format", "json", ".", cwd=tmp_path).stdout)
    assert (document["schema_version"], document["tool"]["name"], document["mode"]) == (1, "tensorcopy-fix", "report")
    assert {"code": "TEN207", "count": len(ten207), "fixable": 0, "unsafe": len(ten207),
            "summary": RULES_BY_CODE["TEN207"].summary} in document["statistics"]
    assert [entry["path"] for entry in document["files"]] == ["TEN207.py", "safe.py"]


def test_summary_counts_files_with_findings_fixable_now_and_with_unsafe_fixes(tmp_path):
    copy_fixture("TEN207", tmp_path)
    (tmp_path / "clean.py").write_text(SAFE_FIXED)
    (tmp_path / "safe.py").write_text(SAFE)
    lines = report_lines("TEN207.py", fixture_text("TEN207.py"))
    unsafe = sum(1 for line in lines if ": TEN207 " in line)
    run = tensorcopy_fix("--no-fix", ".", cwd=tmp_path)
    assert run.stderr == f"{len(lines) + 1} findings in 2 files; 1 fixable, {unsafe} with --unsafe-fixes\n"


def test_file_level_noqa_of_ruff_and_flake8(tmp_path):
    (tmp_path / "all.py").write_text("# ruff: noqa\n" + SAFE)
    (tmp_path / "flake8.py").write_text(SAFE + "# flake8: noqa\n")
    text = "# ruff: noqa: TEN209\n" + fixture_text("TEN209.py")
    (tmp_path / "some.py").write_text(text)
    run = tensorcopy_fix("--no-fix", ".", cwd=tmp_path)
    without_ten209 = tuple(rule for rule in DEFAULT_RULES if rule.code != "TEN209")
    assert run.stdout.splitlines() == report_lines("some.py", text, without_ten209)
    assert {line.split()[1] for line in report_lines("some.py", text)} - {line.split()[1] for line in
                                                                          run.stdout.splitlines()} == {"TEN209"}
    fixed = tensorcopy_fix(".", cwd=tmp_path)
    assert (tmp_path / "all.py").read_text() == "# ruff: noqa\n" + SAFE
    assert (tmp_path / "flake8.py").read_text() == SAFE + "# flake8: noqa\n"
    assert fixed.stderr.startswith("fixed 0 findings in 0 files;")


def test_per_file_ignores_and_extend_select_and_ignore_from_the_configuration(tmp_path):
    (tmp_path / "pyproject.toml").write_text(
        '[tool.tensorcopy]\nextend-select = ["TEN901"]\nextend-ignore = ["TEN209"]\n\n'
        '[tool.tensorcopy.per-file-ignores]\n"tests/*" = ["TEN101"]\n"__init__.py" = ["TEN1"]\n')
    _write(tmp_path, ["tests/test_a.py", "src/a.py", "src/pkg/__init__.py"])
    copy_fixture("TEN901", tmp_path, "src/legacy.py")
    copy_fixture("TEN209", tmp_path, "src/alias.py")
    run = tensorcopy_fix("--no-fix", ".", cwd=tmp_path)
    selected = tuple(rule for rule in (*DEFAULT_RULES, RULES_BY_CODE["TEN901"]) if rule.code != "TEN209")
    assert run.stdout.splitlines() == (report_lines("src/a.py", SAFE, selected)
                                       + report_lines("src/alias.py", fixture_text("TEN209.py"), selected)
                                       + report_lines("src/legacy.py", fixture_text("TEN901.py"), selected))
    assert any(": TEN901 " in line for line in run.stdout.splitlines())
    fixed = tensorcopy_fix(".", cwd=tmp_path)
    assert (tmp_path / "tests/test_a.py").read_text() == (tmp_path / "src/pkg/__init__.py").read_text() == SAFE
    assert (tmp_path / "src/a.py").read_text() == SAFE_FIXED
    assert fixed.returncode == 1  # TEN901 findings are left


def test_extend_select_and_extend_ignore_flags(tmp_path):
    copy_fixture("TEN901", tmp_path)
    text = fixture_text("TEN901.py")
    run = tensorcopy_fix("--no-fix", "--extend-select", "TEN9", "--extend-ignore", "TEN2", "TEN901.py", cwd=tmp_path)
    rules = tuple(rule for rule in ALL_RULES if not rule.code.startswith("TEN2"))
    assert run.stdout.splitlines() == report_lines("TEN901.py", text, rules)
    plain = tensorcopy_fix("--no-fix", "TEN901.py", cwd=tmp_path)
    assert plain.stdout.splitlines() == report_lines("TEN901.py", text) != run.stdout.splitlines()


def test_explain_a_prefix_lists_its_family(tmp_path):
    run = tensorcopy_fix("--explain", "TEN2", cwd=tmp_path)
    family = [rule for rule in ALL_RULES if rule.code.startswith("TEN2")]
    assert len(family) > 1
    assert run.stdout.splitlines() == [f"{rule.code}  {rule.fix_safety:<6}  {rule.summary}" for rule in family]
    assert tensorcopy_fix("--explain", "TEN7", cwd=tmp_path).stderr == "tensorcopy-fix: unknown rule TEN7\n"


def test_findings_of_a_notebook_that_cannot_be_rewritten_are_in_cell_order(tmp_path):
    """A read-only notebook is not rewritten; the fix it would have had is reported with the
    other findings, in order of cell, line and column."""
    path = tmp_path / "train.ipynb"
    path.write_text(as_jupyter_writes(TRAINING, indent=None), encoding="utf-8")
    path.chmod(0o444)
    run = tensorcopy_fix("train.ipynb", cwd=tmp_path)
    assert run.returncode == 2
    assert run.stdout.splitlines() == [
        f"train.ipynb:cell 2:5:10: TEN203 {BACKUP_MESSAGE}",
        f"train.ipynb:cell 3:4:5: TEN101 {COPY_MESSAGE} [*]",
        "train.ipynb:cell 4:2:5: TEN101 torch.tensor() on tensor 'w' copies it detached and warns; use w.detach().clone() [*]",
    ]
