"""Naming conventions: every table entry gives a finding where its name says so and none on a
look-alike name, here and on a flagged and a clean fixture line; names are matched by words; the
tables extend from configuration."""

import fnmatch
import functools
import re
import subprocess
import sys

import pytest

from conftest import MARKER, rule_fixtures, run_tensorcopy_fix
from flake8_tensorcopy.knowledge import conventions
from flake8_tensorcopy.knowledge.conventions import Conventions, configure, snapshot_named, words
from flake8_tensorcopy.engine import lint_source


@pytest.fixture(autouse=True)
def default_conventions():
    configure({})
    yield
    configure({})


def codes(source: str):
    return sorted((finding.line, finding.code) for finding in lint_source(source))


@pytest.mark.parametrize("name, expected", [
    ("val_loss", ("val", "loss")),
    ("CrossEntropyLoss", ("cross", "entropy", "loss")),
    ("BCEWithLogitsLoss", ("bce", "with", "logits", "loss")),
    ("origX", ("orig", "x")),
    ("w_prev2", ("w", "prev")),
    ("prevent", ("prevent",)),
    ("__init__", ("init",)),
])
def test_words(name, expected):
    assert words(name) == expected


SNAPSHOT = """import torch


def step(w: torch.Tensor):
    {name} = w.detach()
    w.add_(1.0)
"""


@pytest.mark.parametrize("entry", Conventions.SNAPSHOT_NAMES)
def test_snapshot_name_is_observed_by_intent(entry):
    assert codes(SNAPSHOT.format(name=f"{entry}_w")) == [(5, "TEN203")]
    assert codes(SNAPSHOT.format(name=f"{entry}ent_w")) == []  # one longer word: prevent, oldent


TRAINING = """import torch
from torch import nn


def run(model: nn.Module, data):
    best = model.state_dict()
    {call}(model, data)
    model.load_state_dict(best)
"""


@pytest.mark.parametrize("entry", Conventions.TRAINING_CALLS)
def test_training_call_writes_the_model(entry):
    assert codes(TRAINING.format(call=f"{entry}_model")) == [(6, "TEN208")]
    assert codes(TRAINING.format(call=f"{entry}ee_model")) == []  # trainee, fitee: not training


LOSS = """import torch.nn.functional as F
from torch import nn


def evaluate(model: nn.Module, batches):
    kept = []
    for x in batches:
        {name} = F.l1_loss(model(x), x)
        kept.append({name})
    return len(kept)
"""


@pytest.mark.parametrize("entry", Conventions.LOSS_NAMES)
def test_a_loss_name_is_no_evidence_of_a_kept_graph(entry):
    """TEN306 decides from the model (issue #23): kept graphs read later only as numbers, not names."""
    read_as_numbers = LOSS.replace("return len(kept)", "return [value.item() for value in kept]")
    for name in (f"val_{entry}", f"val_{entry}less"):
        assert codes(LOSS.format(name=name)) == []
        assert codes(read_as_numbers.format(name=name)) == [(9, "TEN306")]


INPLACE = """import torch


def {name}(w: torch.Tensor{parameter}):
    wd = w.detach()
    wd.div_(2.0)
"""


@pytest.mark.parametrize("entry", Conventions.INPLACE_NAMES)
def test_inplace_name_writes_its_parameter_on_purpose(entry):
    assert codes(INPLACE.format(name=f"{entry}_scale", parameter="")) == []
    assert codes(INPLACE.format(name="scale", parameter=f", {entry}: bool")) == []
    assert codes(INPLACE.format(name=f"x{entry}_scale", parameter="")) == [(5, "TEN203")]
    assert codes(INPLACE.format(name="scale", parameter=f", {entry}d: bool")) == [(5, "TEN203")]
    assert codes(INPLACE.format(name=f"scale_{entry}_rows", parameter="")) == [(5, "TEN203")]  # describes


def test_trailing_underscore_is_the_inplace_suffix():
    assert codes(INPLACE.format(name="scale_", parameter="")) == []
    assert codes(INPLACE.format(name="scale__", parameter="")) == [(5, "TEN203")]


LAYER = """import copy

import torch
from torch import nn


def f(x: torch.Tensor):
    layer = nn.{layer}()
    return copy.deepcopy(layer(x))
"""


def _example(pattern: str) -> str:
    return pattern.replace("*", "").replace("?", "2")


def _look_alike(name: str) -> str:
    """The name with the case of its last letter swapped (``Tanh`` -> ``TanH``)."""
    last = max(index for index, char in enumerate(name) if char.isalpha())
    return name[:last] + name[last].swapcase() + name[last + 1:]


@pytest.mark.parametrize("pattern", Conventions.PARAMETER_FREE_LAYERS)
def test_parameter_free_layer_passes_its_input_grad_through(pattern):
    example = _example(pattern)
    assert codes(LAYER.format(layer=example)) == []
    assert codes(LAYER.format(layer=_look_alike(example))) == [(9, "TEN305")]


RECEIVER = """import torch
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(3))

    def shrink({receiver}):
        view = {receiver}.weight.detach()
        view.mul_(0.5)

    def fill_head({receiver}):
        head = {receiver}.weight[:2]
        head.fill_(1.0)
"""


@pytest.mark.parametrize("receiver", ["self", "me", "this"])
def test_method_receiver_is_the_first_parameter_whatever_its_name(receiver):
    # its own state filled through a window is silent, written through a detached alias reported,
    # whatever the receiver is called
    assert codes(RECEIVER.format(receiver=receiver)) == [(11, "TEN203")]


def test_first_parameter_of_a_static_method_is_a_parameter():
    source = RECEIVER.replace("    def shrink", "    @staticmethod\n    def shrink").format(receiver="me")
    assert codes(source) == [(12, "TEN203")]


def test_inplace_suffix_does_not_excuse_an_alias_kept_on_the_object():
    source = """import torch


class Smoother:
    def {name}(self, x: torch.Tensor):
        self.last = x.detach()
        x.mul_(0.5)
"""
    assert codes(source.format(name="update")) == [(6, "TEN203")]
    assert codes(source.format(name="update_")) == [(6, "TEN203")]


def test_configuration_extends_the_tables():
    assert not snapshot_named("ckpt_w")
    configure({"extend-snapshot-names": ["ckpt"], "select": ["TEN"]})
    assert snapshot_named("ckpt_w")
    assert codes(SNAPSHOT.format(name="ckpt_w")) == [(5, "TEN203")]
    configure({"extend-loss-names": "objective, energy"})
    assert conventions.loss_named("total_energy") and conventions.loss_named("objective")


def test_configuration_rejects_a_value_that_is_not_names():
    with pytest.raises(ValueError, match="extend-training-calls"):
        configure({"extend-training-calls": 3})


def test_flake8_option_and_config_file_extend_the_tables(tmp_path):
    path = tmp_path / "snippet.py"
    path.write_text(SNAPSHOT.format(name="ckpt_w"))

    def run(*args):
        result = subprocess.run([sys.executable, "-m", "flake8", "--select", "TEN", *args, str(path)],
                                capture_output=True, text=True, cwd=tmp_path)
        return re.findall(r":(\d+):\d+: (TEN\d+)", result.stdout)

    assert run() == []
    assert run("--extend-snapshot-names", "ckpt,keep") == [("5", "TEN203")]
    (tmp_path / "setup.cfg").write_text("[flake8]\nextend-snapshot-names = ckpt\n")
    assert run() == [("5", "TEN203")]


def test_cli_reads_the_tables_from_pyproject(tmp_path):
    path = tmp_path / "snippet.py"
    path.write_text(SNAPSHOT.format(name="ckpt_w"))

    def run():  # tensorcopy-fix as the shell runs it, in this process
        result = run_tensorcopy_fix(["--no-fix", str(path)], tmp_path)
        return re.findall(r":(\d+):\d+: (TEN\d+)", result.stdout)

    assert run() == []
    (tmp_path / "pyproject.toml").write_text('[tool.tensorcopy]\nextend-snapshot-names = ["ckpt"]\n')
    assert run() == [("5", "TEN203")]


# --- every entry has a flagged and a clean fixture line ------------------------------------

_IDENTIFIER = re.compile(r"[A-Za-z_]\w*")
_DEF = re.compile(r"^(\s*)(?:async\s+)?def\s+(\w+)")
_LAYER_BINDING = re.compile(r"^\s*(\w+) = nn\.(\w+)\(")


@functools.lru_cache(maxsize=None)
def _fixture_lines():
    """(flagged?, names) for every flagged line and every ``# clean`` line of the fixtures: the
    names on its code, the name of the function holding it, and the ``nn`` class a name on it
    is bound to (``relu = nn.ReLU()``: ``relu(x)`` names ``ReLU``)."""
    lines = []
    for path in rule_fixtures():
        text = path.read_text(encoding="utf-8")
        layers = dict(match.groups() for match in map(_LAYER_BINDING.match, text.splitlines()) if match)
        functions = []  # (indent, name) of the defs open at this line
        for line in text.splitlines():
            code = line.split("#", 1)[0]
            opened = _DEF.match(line)
            indent = len(line) - len(line.lstrip())
            if code.strip():
                functions = [(depth, name) for depth, name in functions if depth < indent]
            if opened:
                functions.append((len(opened.group(1)), opened.group(2)))
            flagged = bool(MARKER.search(line))
            if not flagged and "# clean" not in line:
                continue
            names = set(_IDENTIFIER.findall(code)) | {name for _depth, name in functions}
            lines.append((flagged, names | {layers[name] for name in names if name in layers}))
    return lines


def _matches(table: str, entry: str, name: str) -> bool:
    if table == "PARAMETER_FREE_LAYERS":
        return fnmatch.fnmatchcase(name, entry)
    phrase = words(entry)
    if table == "INPLACE_NAMES":
        return words(name)[:len(phrase)] == phrase
    return conventions._has_phrase(words(name), (phrase,))


def _spelled_inside(entry: str, name: str) -> bool:
    """The entry's letters inside a name it does not match (``prevent`` for ``prev``)."""
    return entry.replace("*", "").replace("?", "").lower() in name.lower()


@pytest.mark.parametrize("table, entry", [(table, entry) for table in Conventions.KEYS.values()
                                          for entry in getattr(Conventions, table)])
def test_every_entry_has_a_flagged_and_a_clean_fixture_line(table, entry):
    lines = _fixture_lines()
    assert any(flagged and any(_matches(table, entry, name) for name in names) for flagged, names in lines), \
        f"no flagged fixture line uses {entry!r} ({table})"
    assert any(not flagged and any(_matches(table, entry, name) or _spelled_inside(entry, name) for name in names)
               for flagged, names in lines), f"no clean fixture line uses {entry!r} or a look-alike ({table})"
