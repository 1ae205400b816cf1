"""ruff's CLI conventions in the real script: exit codes (--exit-zero, --exit-non-zero-on-fix,
--exit-non-zero-on-findings), excludes on files given by name, --stdin-filename, a closed pipe,
and the pre-commit hooks' flags."""

import subprocess

import pytest

from conftest import ROOT, TENSORCOPY_FIX, checkout_env
from test_cli import SAFE, SAFE_FIXED, tensorcopy_fix
from test_output import TEN303_MESSAGE, UNFIXABLE, UNFIXABLE_FIXED


def test_fixing_everything_exits_0_and_exit_non_zero_on_fix_fails(tmp_path):
    (tmp_path / "a.py").write_text(SAFE)
    (tmp_path / "b.py").write_text(SAFE)
    plain = tensorcopy_fix("a.py", cwd=tmp_path)
    strict = tensorcopy_fix("--exit-non-zero-on-fix", "b.py", cwd=tmp_path)
    assert (plain.returncode, strict.returncode) == (0, 1)
    assert (tmp_path / "a.py").read_text() == (tmp_path / "b.py").read_text() == SAFE_FIXED
    again = tensorcopy_fix("--exit-non-zero-on-fix", "b.py", cwd=tmp_path)
    assert again.returncode == 0  # nothing changed this time


def test_findings_left_after_fixing_exit_1_unless_exit_zero(tmp_path):
    (tmp_path / "grads.py").write_text(UNFIXABLE)
    run = tensorcopy_fix("grads.py", cwd=tmp_path)
    assert (tmp_path / "grads.py").read_text() == UNFIXABLE_FIXED
    assert run.stdout == f"grads.py:9:32: TEN303 {TEN303_MESSAGE}\n"
    assert run.returncode == 1
    for args in (["--no-fix"], [], ["--check"]):
        quiet = tensorcopy_fix("--exit-zero", *args, "grads.py", cwd=tmp_path)
        assert quiet.returncode == 0, args
        assert "TEN303" in quiet.stdout


def test_check_fails_while_findings_remain_fixable_or_not(tmp_path):
    """``--check`` is a CI gate: a finding no fix removes fails it too; ``--diff`` keeps asking
    "would a file change?" (``--exit-non-zero-on-findings`` adds the findings left)."""
    (tmp_path / "grads.py").write_text(UNFIXABLE_FIXED)
    check = tensorcopy_fix("--check", "grads.py", cwd=tmp_path)
    assert (check.returncode, check.stdout) == (1, f"grads.py:9:32: TEN303 {TEN303_MESSAGE}\n")
    assert check.stderr == "1 finding in 1 file; 0 fixable, 0 with --unsafe-fixes\n"
    assert (tmp_path / "grads.py").read_text() == UNFIXABLE_FIXED
    diff = tensorcopy_fix("--diff", "grads.py", cwd=tmp_path)
    assert (diff.returncode, diff.stdout) == (0, "")
    strict_diff = tensorcopy_fix("--diff", "--exit-non-zero-on-findings", "grads.py", cwd=tmp_path)
    assert (strict_diff.returncode, strict_diff.stdout) == (1, "")
    (tmp_path / "clean.py").write_text(SAFE_FIXED)
    clean = tensorcopy_fix("--check", "clean.py", cwd=tmp_path)
    assert clean.returncode == 0


def test_check_lists_what_would_change_and_what_no_fix_removes(tmp_path):
    (tmp_path / "grads.py").write_text(UNFIXABLE)
    run = tensorcopy_fix("--check", "grads.py", cwd=tmp_path)
    assert run.stdout == f"would fix 1 finding in grads.py\ngrads.py:9:29: TEN303 {TEN303_MESSAGE}\n"
    assert (run.returncode, run.stderr) == (1, "2 findings in 1 file; 1 fixable, 0 with --unsafe-fixes\n")


@pytest.mark.parametrize("pattern", ["build/", "build", "gen.py", "/build/gen.py", "build/*.py"])
def test_excludes_apply_to_files_given_by_name(tmp_path, pattern):
    (tmp_path / "pyproject.toml").write_text(f'[tool.tensorcopy]\nexclude = ["{pattern}"]\n')
    (tmp_path / "build").mkdir()
    (tmp_path / "build" / "gen.py").write_text(SAFE)
    (tmp_path / "model.py").write_text(SAFE)
    run = tensorcopy_fix("--no-fix", "build/gen.py", "./build/gen.py", "model.py", cwd=tmp_path)
    assert run.stdout.splitlines()[0].startswith("model.py:5:12: TEN101")
    assert run.stderr == "1 finding in 1 file; 1 fixable, 0 with --unsafe-fixes\n"
    forced = tensorcopy_fix("--no-fix", "--no-force-exclude", "build/gen.py", cwd=tmp_path)
    assert forced.stdout.startswith("build/gen.py:5:12: TEN101")


def test_excludes_keep_unrelated_directories(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.tensorcopy]\nexclude = ["build/"]\n')
    (tmp_path / "builder").mkdir()
    (tmp_path / "builder" / "gen.py").write_text(SAFE)
    run = tensorcopy_fix("--no-fix", "builder/gen.py", cwd=tmp_path)
    assert run.stderr == "1 finding in 1 file; 1 fixable, 0 with --unsafe-fixes\n"


def test_stdin_filename_uses_its_config_excludes_and_path(tmp_path):
    project = tmp_path / "project"
    (project / "build").mkdir(parents=True)
    (project / "pyproject.toml").write_text('[tool.tensorcopy]\nexclude = ["build/"]\nselect = ["TEN3"]\n')
    excluded = tensorcopy_fix("--stdin-filename", "project/build/gen.py", cwd=tmp_path, stdin=SAFE.encode())
    assert (excluded.returncode, excluded.stdout, excluded.stderr) == (0, SAFE.encode(), b"")
    # select = ["TEN3"] of project/pyproject.toml: TEN101 is not run, TEN303 is
    run = tensorcopy_fix("--no-fix", "--stdin-filename", "project/grads.py", "-", cwd=tmp_path,
                         stdin=UNFIXABLE.encode())
    assert run.stdout.decode() == f"project/grads.py:9:29: TEN303 {TEN303_MESSAGE}\n"
    assert run.returncode == 1


def test_stdin_filename_with_other_paths_is_a_usage_error(tmp_path):
    (tmp_path / "safe.py").write_text(SAFE)
    run = tensorcopy_fix("--stdin-filename", "x.py", "safe.py", cwd=tmp_path)
    assert run.returncode == 2
    assert run.stderr == "tensorcopy-fix: error: --stdin-filename names what - reads; give no other path\n"


@pytest.mark.parametrize("args", [["--explain", "TEN203"], ["--explain", "all"], ["--no-fix", "many"]])
def test_a_closed_pipe_ends_quietly(tmp_path, args):
    many = tmp_path / "many"
    many.mkdir()
    for number in range(300):
        (many / f"m{number}.py").write_text(SAFE)
    command = " ".join([*TENSORCOPY_FIX, "--no-cache", *args])
    run = subprocess.run(f"{command} | head -1", shell=True, cwd=tmp_path, capture_output=True, text=True,
                         timeout=120, env=checkout_env())
    assert run.stdout.count("\n") == 1
    assert "Traceback" not in run.stderr and "BrokenPipeError" not in run.stderr, run.stderr


def test_pre_commit_hooks_show_fixes_and_exclude_named_files():
    hooks = (ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8")
    entries = [line.split("entry:", 1)[1].strip() for line in hooks.splitlines() if "entry:" in line]
    assert entries == ["tensorcopy-fix --force-exclude --exit-non-zero-on-fix --show-fixes",
                       "tensorcopy-fix --force-exclude --no-fix"]
