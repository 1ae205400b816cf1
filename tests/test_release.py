"""What a release is made of: one version everywhere and a changelog entry for it, install lines
that work while there is no release on the package index, the GitHub Action, and the built
wheel and sdist, installed into a fresh virtualenv and run through both entry points."""

import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import zipfile
from pathlib import Path

import pytest
import yaml

from conftest import ROOT
from flake8_tensorcopy import __version__, install_hint

BAD = "import torch\n\n\nt = torch.ones(3)\nt_copied = torch.tensor(t)\n"


def test_one_version_everywhere_with_its_changelog_entry():
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert re.search(r'^version = "([^"]+)"$', pyproject, flags=re.M).group(1) == __version__ == "0.4.24"
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    versions = re.findall(r"^## (\S+)$", changelog, flags=re.M)
    assert versions[0] == __version__
    entry = changelog.split(f"\n## {__version__}\n", 1)[1].split("\n## ", 1)[0]
    assert re.findall(r"^### (\w+)$", entry, flags=re.M) == ["Changed", "Added", "Fixed"]


# ``pip install`` of the distribution by its name, not followed by a git URL: needs a release
FROM_THE_INDEX = re.compile(r"pip install\s+['\"]?flake8-tensorcopy(?:\[[^\]]*\])?(?!\[|\s*@\s*git\+)")


def install_lines_in(text: str):
    return [match.group(0) for match in FROM_THE_INDEX.finditer(text)]


def test_every_install_line_works_without_a_release_on_the_index():
    """Every ``pip install`` the tools print or the documents show names a checkout or the git
    repository: there is no release on the package index yet."""
    texts = {path: path.read_text(encoding="utf-8") for path in
             [*sorted((ROOT / "flake8_tensorcopy").rglob("*.py")), ROOT / "README.md", ROOT / "CHANGELOG.md",
              ROOT / "action.yml"]}
    assert {str(path.relative_to(ROOT)): install_lines_in(text) for path, text in texts.items()
            if install_lines_in(text)} == {}
    assert install_lines_in("pip install 'flake8-tensorcopy[premises]'") != []  # the pattern sees one
    assert install_hint("server") == ("pip install '.[server]' in a checkout, or pip install "
                                      "'flake8-tensorcopy[server] @ git+https://github.com/flake8-tensorcopy/flake8-tensorcopy'")


def action_steps():
    action = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
    assert action["runs"]["using"] == "composite"
    return action, action["runs"]["steps"]


def test_the_action_installs_its_own_checkout_and_annotates_findings(tmp_path):
    """The step that lints runs ``tensorcopy-fix --no-fix --output-format github`` on the
    action's ``args`` input (here, the tensorcopy-fix of this environment)."""
    action, steps = action_steps()
    install, lint = steps
    assert install["run"] == 'python -m pip install --quiet "$GITHUB_ACTION_PATH"'
    assert lint["run"].startswith("tensorcopy-fix --no-fix --output-format github ")
    (tmp_path / "model.py").write_text(BAD)
    env = dict(os.environ, PATH=os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")]))
    env.update({name: value.replace("${{ inputs.args }}", action["inputs"]["args"]["default"])
                for name, value in lint["env"].items()})
    run = subprocess.run([lint["shell"], "-c", lint["run"] + " --no-cache"], cwd=tmp_path, env=env,
                         capture_output=True, text=True)
    assert (run.returncode, run.stdout) == (1, "::warning file=model.py,line=5,col=12,endLine=5,endColumn=27,"
                                               "title=TEN101::torch.tensor() on tensor 't' copies it detached and "
                                               "warns; use t.detach().clone()\n")


def test_the_wheel_and_sdist_install_and_run_both_entry_points(tmp_path):
    dist, checkout = tmp_path / "dist", tmp_path / "flake8-tensorcopy"
    shutil.copytree(ROOT, checkout, ignore=shutil.ignore_patterns(  # the build writes beside the sources
        ".git", "__pycache__", "*.egg-info", ".pytest_cache", ".hypothesis", "build", "dist", ".tensorcopy_cache"))
    # the PEP 517 backend itself, offline (as ``python -m build --no-isolation`` calls it)
    for hook in ("build_wheel", "build_sdist"):  # one process each: setuptools keeps state between them
        build = f"from setuptools import build_meta as backend; import sys; backend.{hook}(sys.argv[1])"
        built = subprocess.run([sys.executable, "-c", build, str(dist)], cwd=checkout, capture_output=True, text=True)
        assert built.returncode == 0, built.stderr
    wheel_name, sdist_name = f"flake8_tensorcopy-{__version__}-py3-none-any.whl", f"flake8_tensorcopy-{__version__}.tar.gz"
    assert sorted(path.name for path in dist.iterdir()) == sorted([sdist_name, wheel_name])
    with zipfile.ZipFile(dist / wheel_name) as wheel:
        names = set(wheel.namelist())
    assert {"flake8_tensorcopy/data/torch_tables.json", "flake8_tensorcopy/premises/scenarios/TEN902.py",
            "flake8_tensorcopy/codes.py"} <= names
    with tarfile.open(dist / sdist_name) as sdist:
        members = {name.split("/", 1)[1] for name in sdist.getnames() if "/" in name}
    assert {"README.md", "LICENSE", "CHANGELOG.md", "pyproject.toml", "fixtures/premises/TEN902.py",
            "flake8_tensorcopy/plugin.py"} <= members

    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, capture_output=True)
    bin_dir = venv / ("Scripts" if os.name == "nt" else "bin")
    site = subprocess.run([str(bin_dir / "python"), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          check=True, capture_output=True, text=True).stdout.strip()
    # offline: the dependencies (libcst, flake8, pip) come from the test environment
    Path(site, "test_environment.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    env = dict(os.environ, PATH=os.pathsep.join([str(bin_dir), os.environ.get("PATH", "")]))
    env.pop("PYTHONPATH", None)
    # --ignore-installed: the test environment's own copy of this version, seen through the .pth
    # above (a CI install that is not editable), would otherwise count as already installed
    installed = subprocess.run([str(bin_dir / "python"), "-m", "pip", "install", "-q", "--no-deps",
                                "--ignore-installed", str(dist / wheel_name)], capture_output=True, text=True, env=env)
    assert installed.returncode == 0, installed.stderr
    project = tmp_path / "project"
    project.mkdir()
    (project / "model.py").write_text(BAD)
    where = subprocess.run([str(bin_dir / "python"), "-c", "import flake8_tensorcopy; print(flake8_tensorcopy.__file__)"],
                           cwd=project, capture_output=True, text=True, env=env)
    assert where.stdout.startswith(site), where.stdout + where.stderr
    flake8 = subprocess.run([str(bin_dir / "python"), "-m", "flake8", "--select", "TEN", "model.py"], cwd=project,
                            capture_output=True, text=True, env=env)
    assert (flake8.returncode, flake8.stdout.split(" TEN101 ")[0]) == (1, "model.py:5:12:"), flake8.stderr
    fix = subprocess.run([str(bin_dir / "tensorcopy-fix"), "--no-fix", "--no-cache", "model.py"], cwd=project,
                         capture_output=True, text=True, env=env)
    assert (fix.returncode, fix.stdout.split(" TEN101 ")[0]) == (1, "model.py:5:12:"), fix.stderr
    version = subprocess.run([str(bin_dir / "tensorcopy-fix"), "--version"], capture_output=True, text=True, env=env)
    assert version.stdout == f"tensorcopy-fix {__version__}\n"
