"""The faces beside flake8: the pre-commit hooks (through the real ``pre-commit try-repo``
against this checkout) and the LibCST codemod command."""

import os
import shutil
import subprocess
import sys

import pytest

from conftest import ROOT

BAD = "import torch\n\n\nt = torch.ones(3)\nt_copied = torch.tensor(t)\n"
GOOD = "import torch\n\n\nt = torch.ones(3)\nt_copied = t.detach().clone()\n"


def _git(*args, cwd):
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


@pytest.fixture(scope="module")
def checkout(tmp_path_factory):
    """A committed copy of this working tree: try-repo installs the hooks from a git revision."""
    if shutil.which("git") is None or shutil.which("pre-commit") is None:
        pytest.skip("git and pre-commit are needed")
    copy = tmp_path_factory.mktemp("checkout") / "repo"
    ignored = shutil.ignore_patterns(".venv", ".git", "__pycache__", "*.egg-info", ".pytest_cache", "build")
    shutil.copytree(ROOT, copy, ignore=ignored)
    _git("init", "-q", cwd=copy)
    _git("add", "-A", cwd=copy)
    _git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "snapshot", cwd=copy)
    return copy


@pytest.fixture
def project(tmp_path):
    _git("init", "-q", cwd=tmp_path)
    (tmp_path / "model.py").write_text(BAD)
    _git("add", "model.py", cwd=tmp_path)
    return tmp_path


def try_repo(checkout, hook, project):
    env = dict(os.environ, PRE_COMMIT_HOME=str(checkout.parent / "pre-commit-home"))
    return subprocess.run(
        ["pre-commit", "try-repo", str(checkout), hook, "--all-files"],
        cwd=project, capture_output=True, text=True, env=env,
    )


def test_fix_hook_fixes_the_file_and_fails(checkout, project):
    result = try_repo(checkout, "tensorcopy-fix", project)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "files were modified by this hook" in result.stdout
    assert "model.py:5:12: fixed TEN101" in result.stdout  # --show-fixes: which fixes were applied
    assert "fixed 1 finding in 1 file, 0 left" in result.stdout  # no --quiet: the summary and its hints
    assert (project / "model.py").read_text() == GOOD


def test_hooks_skip_excluded_files_pre_commit_names(checkout, project):
    (project / "pyproject.toml").write_text('[tool.tensorcopy]\nexclude = ["build/"]\n')
    (project / "build").mkdir()
    (project / "build" / "gen.py").write_text(BAD)
    (project / "model.py").write_text(GOOD)
    _git("add", "-A", cwd=project)
    for hook in ("tensorcopy-fix", "tensorcopy-check"):
        result = try_repo(checkout, hook, project)
        assert result.returncode == 0, result.stdout + result.stderr
    assert (project / "build" / "gen.py").read_text() == BAD


def test_check_hook_reports_and_changes_nothing(checkout, project):
    result = try_repo(checkout, "tensorcopy-check", project)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "model.py:5:12: TEN101 torch.tensor() on tensor 't'" in result.stdout
    assert (project / "model.py").read_text() == BAD


def test_hooks_pass_on_clean_code(checkout, project):
    (project / "model.py").write_text(GOOD)
    for hook in ("tensorcopy-fix", "tensorcopy-check"):
        result = try_repo(checkout, hook, project)
        assert result.returncode == 0, result.stdout + result.stderr


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
