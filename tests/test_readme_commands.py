"""The README's commands, run as a new user would: in a fresh virtualenv with the package
installed from a copy of the checkout (not the editable install the suite runs on).

Offline and quick: the new environment sees the test environment's packages (libcst, flake8,
torch, pip) through a ``.pth`` file, and pip installs the checkout with ``--no-deps``. Each command is
taken from the README's text, so a README that drifts from what works fails here.
"""

import os
import re
import shlex
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from conftest import ROOT

pytestmark = pytest.mark.slow

README = (ROOT / "README.md").read_text(encoding="utf-8")
BAD = "import torch\n\n\nt = torch.ones(3)\nt_copied = torch.tensor(t)\n"
GOOD = "import torch\n\n\nt = torch.ones(3)\nt_copied = t.detach().clone()\n"


def readme_command(start: str) -> str:
    """The README's command line (in a console block or in backquotes) that starts with ``start``."""
    lines = re.findall(r"^(\S.*?)(?:\s{2,}#.*)?$", README, flags=re.M) + re.findall(r"`([^`\n]+)`", README)
    matches = [line for line in lines if line.startswith(start)]
    assert matches, f"the README has no command starting with {start!r}"
    return matches[0]


@pytest.fixture(scope="module")
def fresh(tmp_path_factory):
    """(a directory holding ./flake8-tensorcopy, a fresh venv's bin directory)."""
    base = tmp_path_factory.mktemp("fresh")
    checkout = base / "flake8-tensorcopy"
    shutil.copytree(ROOT, checkout, ignore=shutil.ignore_patterns(
        ".git", ".venv", "__pycache__", "*.egg-info", ".pytest_cache", ".hypothesis", "build", ".cache",
        ".tensorcopy_cache"))
    venv = base / "venv"
    # no pip of its own: the test environment's pip, setuptools and wheel build and install
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, capture_output=True)
    bin_dir = venv / ("Scripts" if os.name == "nt" else "bin")
    python = bin_dir / "python"
    site = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          check=True, capture_output=True, text=True).stdout.strip()
    Path(site, "test_environment.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    install = readme_command("pip install ./flake8-tensorcopy")
    run = subprocess.run([str(python), "-m", *shlex.split(install), "--no-deps", "--no-build-isolation", "-q"],
                         cwd=base, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    return base, bin_dir


def in_venv(bin_dir: Path, command: str, cwd: Path, replace=("", "")):
    env = dict(os.environ, PATH=str(bin_dir) + os.pathsep + os.environ.get("PATH", ""), VIRTUAL_ENV=str(bin_dir.parent))
    env.pop("PYTHONPATH", None)
    args = [arg.replace(*replace) for arg in shlex.split(command)]
    return subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


def test_installed_copy_is_the_one_run(fresh):
    base, bin_dir = fresh
    where = in_venv(bin_dir, "python -c 'import flake8_tensorcopy; print(flake8_tensorcopy.__file__)'", base)
    assert where.stdout.startswith(str(bin_dir.parent)), where.stdout + where.stderr
    assert (base / "flake8-tensorcopy" / "LICENSE").read_text().startswith("MIT License")


def test_flake8_face(fresh):
    base, bin_dir = fresh
    package = base / "your_package"
    package.mkdir(exist_ok=True)
    (package / "model.py").write_text(BAD)
    run = in_venv(bin_dir, readme_command("flake8 --select TEN your_package/"), base)
    assert run.returncode == 1, run.stderr
    assert run.stdout.startswith(f"your_package{os.sep}model.py:5:12: TEN101 ")
    fixtures = in_venv(bin_dir, readme_command("python -m pip install . && ").split("&& ")[-1],
                       base / "flake8-tensorcopy")
    assert fixtures.returncode == 1 and " TEN" in fixtures.stdout


def test_tensorcopy_fix_commands(fresh, tmp_path):
    _, bin_dir = fresh
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "model.py").write_text(BAD)
    report = in_venv(bin_dir, readme_command("tensorcopy-fix --no-fix src/"), tmp_path)
    assert (report.returncode, report.stdout.split(" TEN101 ")[0]) == (1, "src/model.py:5:12:")
    check = in_venv(bin_dir, readme_command("tensorcopy-fix --check src/"), tmp_path)
    assert (check.returncode, check.stdout) == (1, "would fix 1 finding in src/model.py\n")
    fix = in_venv(bin_dir, readme_command("tensorcopy-fix src/"), tmp_path)
    assert (fix.returncode, (tmp_path / "src" / "model.py").read_text()) == (0, GOOD)
    explain = in_venv(bin_dir, readme_command("tensorcopy-fix --explain TEN203"), tmp_path)
    assert explain.returncode == 0 and explain.stdout.startswith("TEN203: ")


def test_libcst_codemod_command(fresh, tmp_path):
    _, bin_dir = fresh
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "model.py").write_text(BAD)
    command = readme_command("python -m libcst.tool codemod")
    assert "--no-format" in command
    run = in_venv(bin_dir, command, tmp_path)
    assert run.returncode == 0, run.stderr
    assert (tmp_path / "src" / "model.py").read_text() == GOOD


def test_premises_command(fresh, tmp_path):
    _, bin_dir = fresh
    command = readme_command("tensorcopy-premises --device all")
    run = in_venv(bin_dir, command + " --rule TEN101", tmp_path)
    assert run.returncode == 0, run.stderr
    assert re.search(r"^\| TEN101 \| cpu \| .* \| holds \|$", run.stdout, flags=re.M), run.stdout
