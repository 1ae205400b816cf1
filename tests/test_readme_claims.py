"""What the README promises a first-time reader, checked against what the tools do: the quick
start shows hazards only, the pre-commit examples run one linter each, the editor snippets state
the version they need, the premise count is the one the command runs."""

import re
import shlex
import subprocess
import sys

import pytest

from conftest import ROOT
from flake8_tensorcopy.codes import is_opinionated

README = (ROOT / "README.md").read_text(encoding="utf-8")


def readme_section(heading: str) -> str:
    return README.split(f"\n## {heading}\n", 1)[1].split("\n## ", 1)[0]


def test_the_quick_start_shows_hazards_only():
    """The README's first command lints the bundled examples, which hold opinionated TEN9xx
    cases too: with its options, what it prints is hazards alone (run here on the opinionated
    examples and one hazard's, the whole directory taking too long for the default suite)."""
    first_line = README.split("```console\n", 1)[1].splitlines()[0]
    *flake8_command, directory = shlex.split(first_line.split(" && ", 1)[1])
    assert (flake8_command[:3], directory) == (["python", "-m", "flake8"], "fixtures/")
    examples = sorted(str(path.relative_to(ROOT)) for path in (ROOT / directory).glob("TEN9[0-9][0-9].py"))
    assert len(examples) >= 2
    result = subprocess.run([sys.executable, *flake8_command[1:], *examples, directory + "TEN101.py"], cwd=ROOT,
                            capture_output=True, text=True)
    codes = {row.split(": ", 1)[1].split()[0] for row in result.stdout.splitlines()}
    assert result.returncode == 1 and "TEN101" in codes
    assert sorted(code for code in codes if is_opinionated(code)) == []


def test_each_pre_commit_example_runs_one_hook():
    """Two hooks (or a hook beside flake8's) print every finding twice."""
    blocks = re.findall(r"```yaml\n(.*?)```", readme_section("pre-commit"), flags=re.S)
    assert len(blocks) == 2
    assert [re.findall(r"- id: (\S+)", block) for block in blocks] == [["tensorcopy-fix"], ["flake8"]]


# Neovim APIs the snippets may call, with the version that added them
NEOVIM_APIS = {"vim.fs.root": "0.10", "vim.lsp.config": "0.11", "vim.lsp.enable": "0.11"}


def test_every_neovim_snippet_states_the_version_it_needs():
    """A snippet copied into init.lua carries its requirement with it."""
    snippets = re.findall(r"```lua\n(.*?)```", README, flags=re.S)
    assert snippets
    for snippet in snippets:
        needed = max((version for api, version in NEOVIM_APIS.items() if api + "(" in snippet),
                     key=lambda version: tuple(map(int, version.split("."))), default=None)
        assert needed is None or f"Neovim {needed}+" in snippet, snippet


def test_the_premise_count_and_table_are_the_premises_the_command_runs():
    harness = pytest.importorskip("flake8_tensorcopy.premises.harness")
    codes = harness.available_codes()
    on_cpu = [code for code in codes
              if "cpu" in harness._load(harness.scenario_source(code), code).get("DEVICES", harness.DEVICE_TYPES)]
    trust = readme_section("Why you can trust these rules")
    assert f"on CPU, all {len(on_cpu)} that apply hold, of the {len(codes)} premises `tensorcopy-premises` runs" in trust
    listed = []
    for row in re.findall(r"^\| (TEN[^|]*)\|", trust, flags=re.M):
        for first, last in re.findall(r"TEN(\d{3})(?:–TEN(\d{3}))?", row):
            listed += [code for code in codes if int(first) <= int(code[3:]) <= int(last or first)]
    assert sorted(listed) == codes
