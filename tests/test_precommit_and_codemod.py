"""The faces beside flake8: the pre-commit hooks (installed by the real ``pre-commit`` from a git
revision of this checkout, as a user's config installs them) and the LibCST codemod command."""

import os
import shutil
import subprocess
import sys

import pytest

from conftest import ROOT

BAD = "import torch\n\n\nt = torch.ones(3)\nt_copied = torch.tensor(t)\n"
GOOD = "import torch\n\n\nt = torch.ones(3)\nt_copied = t.detach().clone()\n"


def _git(*args, cwd):
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout


@pytest.fixture(scope="module")
def hooks(tmp_path_factory):
    """A committed copy of this working tree, and a pre-commit home where its hooks are installed
    once: ``pre-commit try-repo`` would reinstall them (a fresh environment) on every call."""
    if shutil.which("git") is None or shutil.which("pre-commit") is None:
        pytest.skip("git and pre-commit are needed")
    copy = tmp_path_factory.mktemp("checkout") / "repo"
    ignored = shutil.ignore_patterns(".venv", ".git", "__pycache__", "*.egg-info", ".pytest_cache", "build",
                                     ".hypothesis")
    shutil.copytree(ROOT, copy, ignore=ignored)
    _git("init", "-q", cwd=copy)
    _git("add", "-A", cwd=copy)
    _git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "snapshot", cwd=copy)
    config = (
        f"repos:\n  - repo: {copy}\n    rev: {_git('rev-parse', 'HEAD', cwd=copy).strip()}\n"
        "    hooks:\n      - id: tensorcopy-fix\n      - id: tensorcopy-check\n"
    )
    env = dict(os.environ, PRE_COMMIT_HOME=str(copy.parent / "pre-commit-home"))
    return config, env


@pytest.fixture
def project(tmp_path, hooks):
    """A git repository holding BAD in model.py and a config that uses both hooks."""
    config, _env = hooks
    _git("init", "-q", cwd=tmp_path)
    (tmp_path / ".pre-commit-config.yaml").write_text(config)
    (tmp_path / "model.py").write_text(BAD)
    _git("add", "model.py", ".pre-commit-config.yaml", cwd=tmp_path)
    return tmp_path


def run_hook(hooks, hook, project):
    _config, env = hooks
    return subprocess.run(
        ["pre-commit", "run", hook, "--all-files"], cwd=project, capture_output=True, text=True, env=env,
    )


@pytest.mark.slow  # a parallel or subprocess-heavy run: left out of the default suite (< 3 min)
def test_fix_hook_fixes_the_file_and_fails(hooks, project):
    result = run_hook(hooks, "tensorcopy-fix", project)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "files were modified by this hook" in result.stdout
    assert "model.py:5:12: fixed TEN101" in result.stdout  # --show-fixes: which fixes were applied
    assert "fixed 1 finding in 1 file; 0 left" in result.stdout  # no --quiet: the summary and its hints
    assert (project / "model.py").read_text() == GOOD


@pytest.mark.slow  # builds pre-commit hook environments: left out of the default suite (< 3 min)
def test_hooks_skip_excluded_files_pre_commit_names(hooks, project):
    (project / "pyproject.toml").write_text('[tool.tensorcopy]\nexclude = ["build/"]\n')
    (project / "build").mkdir()
    (project / "build" / "gen.py").write_text(BAD)
    (project / "model.py").write_text(GOOD)
    _git("add", "-A", cwd=project)
    for hook in ("tensorcopy-fix", "tensorcopy-check"):
        result = run_hook(hooks, hook, project)
        assert result.returncode == 0, result.stdout + result.stderr
    assert (project / "build" / "gen.py").read_text() == BAD


@pytest.mark.slow  # builds pre-commit hook environments: left out of the default suite (< 3 min)
def test_check_hook_reports_and_changes_nothing(hooks, project):
    result = run_hook(hooks, "tensorcopy-check", project)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "model.py:5:12: TEN101 torch.tensor() on tensor 't'" in result.stdout
    assert "files were modified" not in result.stdout
    assert (project / "model.py").read_text() == BAD


@pytest.mark.slow  # builds pre-commit hook environments: left out of the default suite (< 3 min)
def test_hooks_pass_on_clean_code(hooks, project):
    (project / "model.py").write_text(GOOD)
    for hook in ("tensorcopy-fix", "tensorcopy-check"):
        result = run_hook(hooks, hook, project)
        assert result.returncode == 0, result.stdout + result.stderr
        assert f"{hook}" in result.stdout and "Passed" in result.stdout


def test_libcst_codemod_command(tmp_path):
    target = tmp_path / "model.py"
    target.write_text(BAD)
    result = subprocess.run(
        [sys.executable, "-m", "libcst.tool", "codemod", "-x", "--no-format",
         "flake8_tensorcopy.codemod.TensorCopyFix", str(target)],
        capture_output=True, text=True, cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr
    assert target.read_text() == GOOD
