"""Strict ``[tool.tensorcopy]``: a typo, an unknown table, a wrong type or an unreadable file
is one line on stderr naming the file and the key, and exit 2 (the real script: in this process as
the shell would run it, and in a subprocess with ``tomllib`` hidden)."""

import os
import subprocess
import sys

import pytest

from conftest import TENSORCOPY_FIX, checkout_env, run_tensorcopy_fix
from test_cli import SAFE, tensorcopy_fix

from flake8_tensorcopy.config import ConfigError, load_config

# The same CLI with ``tomllib`` hidden: it reads with tomli, as on Python 3.9/3.10.
WITHOUT_TOMLLIB = [sys.executable, "-c", "import sys; sys.modules['tomllib'] = None; "
                   "from flake8_tensorcopy.cli import main; sys.exit(main())"]


def _run(command, tmp_path, *args):
    if command == TENSORCOPY_FIX:  # no other interpreter's modules needed: run in this process
        return run_tensorcopy_fix(["--no-cache", *args], tmp_path)
    return subprocess.run([*command, "--no-cache", *args], cwd=tmp_path, capture_output=True, text=True, timeout=60,
                          env=checkout_env())


MISTAKES = [
    ('[tool.tensorcopy]\nignroe = ["TEN208"]\n',
     "[tool.tensorcopy] unknown key 'ignroe' (did you mean 'ignore'?)"),
    ('[tool.tensorcopy]\nlevel = "strict"\n',
     "[tool.tensorcopy] unknown key 'level' (known: exclude, extend-config-names, extend-exclude, extend-ignore, "
     "extend-inplace-names, extend-loss-names, extend-parameter-free-layers, extend-select, extend-snapshot-names, "
     "extend-training-calls, ignore, per-file-ignores, respect-gitignore, select, unsafe-fixes)"),
    ('[tool.tensorcopy]\nignore = "TEN208"\n',
     '[tool.tensorcopy] ignore must be a list of strings, not "TEN208"'),
    ('[tool.tensorcopy]\nexclude = ["build/", 3]\n',
     "[tool.tensorcopy] exclude must be a list of strings, not ['build/', 3]"),
    ('[tool.tensorcopy]\nunsafe-fixes = "yes"\n',
     '[tool.tensorcopy] unsafe-fixes must be true or false, not "yes"'),
    ('[tool.tensorcopy]\nselect = ["TEN1"]\n\n[tool.tensorcopy.per-file-ignore]\n"a.py" = ["TEN101"]\n',
     "unknown table [tool.tensorcopy.per-file-ignore]"),
    ('[tool.tensorcopy]\nselect = ["XYZ"]\n', "[tool.tensorcopy] select: unknown code or prefix: XYZ"),
    ('[tool.tensorcopy]\nextend-ignore = ["TEN1", "TEN88"]\n',
     "[tool.tensorcopy] extend-ignore: unknown code or prefix: TEN88"),
    ('[tool.tensorcopy.per-file-ignores]\n"tests/*" = ["TEN2", "E501"]\n',
     '[tool.tensorcopy] per-file-ignores "tests/*": unknown code or prefix: E501'),
    ('[tool.tensorcopy]\nper-file-ignores = ["tests/*"]\n',
     "[tool.tensorcopy] per-file-ignores must be a table of file patterns to lists of codes, not ['tests/*']"),
    ('[tool.tensorcopy]\nrespect-gitignore = 0\n', "[tool.tensorcopy] respect-gitignore must be true or false, not 0"),
]
# read with tomli as on Python 3.9/3.10: one mistake of each kind (a key, a type, a table, a code)
# in the default run, every one under -m slow
WITH_TOMLI = [pytest.param(WITHOUT_TOMLLIB, *mistake, id=f"without-tomllib-{index}",
                           marks=() if index in (0, 2, 5, 6) else pytest.mark.slow)
              for index, mistake in enumerate(MISTAKES)]


@pytest.mark.parametrize("command, table, message", [
    pytest.param(TENSORCOPY_FIX, *mistake, id=f"tomllib-{index}") for index, mistake in enumerate(MISTAKES)
] + WITH_TOMLI)
def test_config_mistakes_are_one_line_errors_naming_file_and_key(tmp_path, command, table, message):
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "demo"\n\n' + table)
    (tmp_path / "safe.py").write_text(SAFE)
    run = _run(command, tmp_path, "safe.py")
    assert (run.returncode, run.stdout, run.stderr) == (2, "", f"tensorcopy-fix: pyproject.toml: {message}\n")
    assert (tmp_path / "safe.py").read_text() == SAFE


def test_config_of_a_parent_directory_is_named_by_its_path(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.tensorcopy]\nselct = []\n")
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "safe.py").write_text(SAFE)
    run = tensorcopy_fix("safe.py", cwd=package)
    expected = "tensorcopy-fix: ../pyproject.toml: [tool.tensorcopy] unknown key 'selct' (did you mean 'select'?)\n"
    assert (run.returncode, run.stderr) == (2, expected)


def test_invalid_toml_is_one_line_exit_2(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.tensorcopy]\nselect = ["TEN1"\n')
    (tmp_path / "safe.py").write_text(SAFE)
    run = tensorcopy_fix("safe.py", cwd=tmp_path)
    assert run.returncode == 2
    assert run.stderr.startswith("tensorcopy-fix: pyproject.toml: cannot parse: ")
    assert run.stderr.count("\n") == 1 and "Traceback" not in run.stderr
    assert (tmp_path / "safe.py").read_text() == SAFE


def test_undecodable_pyproject_is_one_line_exit_2(tmp_path):
    (tmp_path / "pyproject.toml").write_bytes(b'[tool.tensorcopy]\nselect = ["\xff"]\n')
    (tmp_path / "safe.py").write_text(SAFE)
    run = tensorcopy_fix("safe.py", cwd=tmp_path)
    assert run.returncode == 2
    assert run.stderr.startswith("tensorcopy-fix: pyproject.toml: cannot read: ")
    assert run.stderr.count("\n") == 1


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root reads any file")
def test_unreadable_pyproject_is_one_line_exit_2(tmp_path):
    config = tmp_path / "pyproject.toml"
    config.write_text("[tool.tensorcopy]\n")
    config.chmod(0)
    (tmp_path / "safe.py").write_text(SAFE)
    run = tensorcopy_fix("safe.py", cwd=tmp_path)
    assert (run.returncode, run.stderr) == (2, "tensorcopy-fix: pyproject.toml: cannot read: Permission denied\n")


def test_well_formed_config_is_accepted(tmp_path):
    (tmp_path / "pyproject.toml").write_text(
        '[tool.tensorcopy]\nselect = ["TEN1"]\nignore = ["TEN104"]\nexclude = []\nunsafe-fixes = false\n'
        '\n[tool.other]\nanything = 1\n'
    )
    (tmp_path / "safe.py").write_text(SAFE)
    run = tensorcopy_fix("--no-fix", "safe.py", cwd=tmp_path)
    assert run.returncode == 1
    assert run.stderr == "1 finding in 1 file; 1 fixable, 0 with --unsafe-fixes\n"


def test_a_read_error_names_the_file(tmp_path, monkeypatch):
    """The unreadable case where the tests run as root (who reads any file)."""
    from pathlib import Path

    from flake8_tensorcopy.config import ConfigError, load_config

    (tmp_path / "pyproject.toml").write_text("[tool.tensorcopy]\n")
    monkeypatch.chdir(tmp_path)

    def refuse(self):
        raise PermissionError(13, "Permission denied", str(self))

    monkeypatch.setattr(Path, "read_bytes", refuse)
    with pytest.raises(ConfigError) as error:
        load_config(tmp_path)
    assert str(error.value) == "pyproject.toml: cannot read: Permission denied"


def test_naming_convention_keys_are_lists_carried_to_the_conventions(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.tensorcopy]\nextend-snapshot-names = ["ckpt"]\n')
    assert load_config(tmp_path).conventions == {"extend-snapshot-names": ["ckpt"]}
    (tmp_path / "pyproject.toml").write_text('[tool.tensorcopy]\nextend-loss-names = "objective"\n')
    with pytest.raises(ConfigError, match="extend-loss-names must be a list of strings"):
        load_config(tmp_path)


@pytest.mark.parametrize("command", [TENSORCOPY_FIX, WITHOUT_TOMLLIB], ids=["tomllib", "tomli"])
@pytest.mark.parametrize("table", [
    '[tool]\ntensorcopy = { select = ["TEN1"], ignore = ["TEN101"] }\n',
    '[tool.tensorcopy]\nselect = [\n  "TEN1",  # copies\n]\n"ignore" = ["""TEN101"""]\n',
    "tool.tensorcopy.select = ['TEN1']\ntool.tensorcopy.ignore = ['TEN101']\n",
])
def test_any_toml_spelling_of_the_table_is_read(tmp_path, command, table):
    """tomllib or, before Python 3.11, tomli: inline tables, dotted keys, quoted keys, multi-line arrays."""
    (tmp_path / "pyproject.toml").write_text(table)
    (tmp_path / "safe.py").write_text(SAFE)
    run = _run(command, tmp_path, "--no-fix", "safe.py")
    assert (run.returncode, run.stdout) == (0, ""), run.stderr  # TEN1 selected, TEN101 ignored
    assert run.stderr == "no findings (1 file checked)\n"
