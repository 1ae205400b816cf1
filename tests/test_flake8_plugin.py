"""The real flake8 executable, in a subprocess, with our plugin installed."""

import pytest
import re
import subprocess
import sys

from conftest import FIXTURES, expectations, mismatches, rule_fixtures, run_tensorcopy_fix


def flake8(*args, cwd=None):
    return subprocess.run(
        [sys.executable, "-m", "flake8", *args], capture_output=True, text=True, cwd=cwd
    )


def test_version_names_the_plugin():
    result = flake8("--version")
    assert result.returncode == 0
    assert "flake8-tensorcopy" in result.stdout


# flake8 as ``python -m flake8`` runs it, after the fixer's whole parse of the file named last
# (popped from the arguments), saying at exit whether torch or numpy was imported
FLAKE8_WATCHING_IMPORTS = (
    "import atexit, sys\n"
    "atexit.register(lambda: print('imported torch, numpy:', 'torch' in sys.modules, 'numpy' in sys.modules,"
    " file=sys.stderr))\n"
    "from flake8_tensorcopy.fixer import fix_source\n"
    "fix_source(open(sys.argv.pop(), encoding='utf-8').read(), unsafe=True)\n"
    "from flake8.main.cli import main\n"
    "sys.exit(main())\n"
)


def check_fixtures(jobs: str, fixtures) -> None:
    """flake8 over the fixtures reports exactly the marked findings: lines, codes, columns and
    messages as it prints them; and neither that lint (in this process with ``-j 1``) nor the
    fixer's whole parse of a fixture imported torch or numpy (the linter never does: they are
    the extras of ``premises/`` and the monitor)."""
    result = subprocess.run([sys.executable, "-c", FLAKE8_WATCHING_IMPORTS, "--select", "TEN,TEN9", "-j", jobs,
                             *map(str, fixtures), str(FIXTURES / "TEN207.py")], capture_output=True, text=True)
    assert result.stderr.splitlines()[-1:] == ["imported torch, numpy: False False"], result.stderr
    found = {str(path): [] for path in fixtures}
    for row in result.stdout.splitlines():
        path, line, column, message = row.split(":", 3)
        code, text = message.split(maxsplit=1)
        found[path].append((int(line), code, int(column), text))
    for path in fixtures:
        assert mismatches(found[str(path)], expectations(path.read_text(encoding="utf-8"))) == [], path.name
    assert result.returncode == 1


# The engine's findings on every fixture are test_fixtures' (in-process, the same lint_source
# call the plugin makes); through flake8, the default run takes one fixture of the whole-fixture
# sample (TEN208's), TEN207 (the fixtures' only ``# noqa`` lines) and the opinions (TEN9xx,
# selected with --select TEN9); -m slow every fixture.
FLAKE8_DEFAULT_FIXTURES = sorted(path for path in rule_fixtures()
                                 if path.stem in {"TEN207", "TEN208"} or path.stem.startswith("TEN9"))


@pytest.mark.parametrize("fixtures", [pytest.param(FLAKE8_DEFAULT_FIXTURES, id="sample"),
                                      pytest.param(rule_fixtures(), id="every", marks=pytest.mark.slow)])
def test_fixtures_report_exactly_the_marked_findings(fixtures):
    check_fixtures("1", fixtures)


@pytest.mark.slow  # a parallel or subprocess-heavy run: left out of the default suite (< 3 min)
def test_parallel_jobs_report_the_same_marked_findings():
    check_fixtures("2", rule_fixtures())


def test_output_format_and_noqa(tmp_path):
    source = (
        "import torch\n"
        "def f(t: torch.Tensor):\n"
        "    a = torch.tensor(t)\n"
        "    b = torch.tensor(t)  # noqa: TEN101\n"
        "    c = torch.tensor(t)  # noqa\n"
        "    d = torch.tensor(t)  # noqa: E501\n"
        "    return a, b, c, d\n"
    )
    path = tmp_path / "snippet.py"
    path.write_text(source)
    result = flake8("--select", "TEN", str(path))
    rows = result.stdout.splitlines()
    assert [row.split(":")[1:3] for row in rows] == [["3", "9"], ["6", "9"]]
    assert rows[0].startswith(f"{path}:3:9: TEN101 torch.tensor() on tensor 't'")


def test_select_and_ignore(tmp_path):
    path = tmp_path / "snippet.py"
    path.write_text("import torch\n\n\ndef f(t: torch.nn.Parameter):\n    return torch.tensor(t.clone().detach())\n")
    both = flake8("--select", "TEN", str(path)).stdout
    assert [row.split()[1] for row in both.splitlines()] == ["TEN101", "TEN104"]
    only_104 = flake8("--select", "TEN104", str(path)).stdout
    assert [row.split()[1] for row in only_104.splitlines()] == ["TEN104"]
    ignored = flake8("--select", "TEN", "--extend-ignore", "TEN104", str(path)).stdout
    assert [row.split()[1] for row in ignored.splitlines()] == ["TEN101"]
    extended = flake8("--select", "E", "--extend-select", "TEN101", str(path)).stdout
    assert [row.split()[1] for row in extended.splitlines()] == ["TEN101"]


def test_syntax_error_and_empty_file_do_not_crash(tmp_path):
    broken = tmp_path / "broken.py"
    broken.write_text("import torch\ndef f(t:\n    torch.tensor(t)\n")
    empty = tmp_path / "empty.py"
    empty.write_text("")
    result = flake8(str(broken), str(empty))
    assert "E999" in result.stdout
    assert "TEN" not in result.stdout
    assert "Traceback" not in result.stderr and "failed" not in result.stderr


def test_a_file_without_tensors_costs_no_libcst_import(tmp_path):
    path = tmp_path / "plain.py"
    path.write_text("import os\n\n\ndef f(x):\n    x.data = x.clone()\n    return os.sep\n")
    script = (
        "import ast, sys\n"
        "from flake8_tensorcopy.plugin import TensorCopyChecker\n"
        f"lines = open({str(path)!r}).readlines()\n"
        "assert list(TensorCopyChecker(ast.parse(''.join(lines)), lines).run()) == []\n"
        "print('libcst' in sys.modules)\n"
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["False"]


def test_a_file_that_cannot_be_analysed_is_one_ten001_and_the_others_are_checked(tmp_path):
    """Deep nesting in a statement with a finding, and a line beyond the size limit: each such
    file gets one TEN001 naming the reason; the file beside them keeps its findings."""
    from conftest import deeply_nested

    for shape in ("strings", "attributes", "unary_default"):
        (tmp_path / f"deep_{shape}.py").write_text(deeply_nested(shape))
    (tmp_path / "long_line.py").write_text("import torch\nx = [" + "torch.zeros(1), " * 1000 + "]\n")
    (tmp_path / "data_pb2.py").write_text("DATA = b'" + "x" * 20_000 + "'\n")  # long, but no tensor: silent
    (tmp_path / "plain.py").write_text("import torch\n\n\ndef f():\n    t = torch.ones(3)\n    return torch.tensor(t)\n")
    result = flake8("--select", "TEN", "-j", "1", ".", cwd=tmp_path)
    deep = "TEN001 flake8-tensorcopy could not analyse this file: too deeply nested (Python's recursion limit " \
           "reached in LibCST or the analysis)"
    assert result.stdout.splitlines() == [
        f"./deep_attributes.py:1:1: {deep}",
        f"./deep_strings.py:1:1: {deep}",
        f"./deep_unary_default.py:1:1: {deep}",
        "./long_line.py:1:1: TEN001 flake8-tensorcopy could not analyse this file: a line of 16,006 characters is "
        "too long (the limit is 10,000)",
        "./plain.py:6:12: TEN101 torch.tensor() on tensor 't' copies it detached and warns; use t.detach().clone()",
    ]
    assert result.stderr == ""
    assert result.returncode == 1


def test_an_internal_error_is_reported_not_raised(tmp_path):
    script = (
        "import ast\n"
        "from flake8_tensorcopy import engine\n"
        "from flake8_tensorcopy.plugin import TensorCopyChecker\n"
        "def broken(*args, **kwargs):\n"
        "    raise MemoryError\n"
        "engine.lint_source = broken\n"
        "source = 'import torch\\nx = torch.zeros(2)\\n'\n"
        "print(list(TensorCopyChecker(ast.parse(source), source.splitlines(True)).run()))\n"
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout == (
        "[(1, 0, 'TEN001 flake8-tensorcopy could not analyse this file: out of memory', "
        "<class 'flake8_tensorcopy.plugin.TensorCopyChecker'>)]\n"
    )


def test_a_line_beyond_the_limit_is_refused_without_walking_its_tree(monkeypatch):
    import ast

    from flake8_tensorcopy import plugin

    def fail(_tree):
        raise AssertionError("scanned")

    monkeypatch.setattr(plugin, "scan_statements", fail)
    lines = ["import numpy\n", "x = [" + "numpy.zeros(1), " * 700 + "]\n"]
    assert list(plugin.TensorCopyChecker(ast.parse("".join(lines)), lines).run()) == [
        (1, 0, "TEN001 flake8-tensorcopy could not analyse this file: a line of 11,206 characters is too long "
               "(the limit is 10,000)", plugin.TensorCopyChecker)
    ]


# No import of torch or numpy: the tensors come from a model passed in.
NO_IMPORT = 'def raw(model):\n    weights = model.state_dict()["weight"]\n    return weights.data\n'


def test_one_file_gets_one_answer_from_both_faces(tmp_path):
    """The plugin's early gate (taken before LibCST is imported) is the engine's own first gate:
    flake8 and tensorcopy-fix report the same findings, also where only a state_dict() says
    there are tensors. The opinionated TEN9 codes are selected the same way in both."""
    (tmp_path / "no_import.py").write_text(NO_IMPORT)
    (tmp_path / "fixture.py").write_text(rule_fixtures()[0].read_text(encoding="utf-8"))
    by_flake8 = flake8("--select", "TEN,TEN9", "no_import.py", "fixture.py", cwd=tmp_path).stdout
    by_cli = run_tensorcopy_fix(["--no-fix", "--no-cache", "--select", "TEN,TEN9", "no_import.py", "fixture.py"],
                                tmp_path).stdout
    pattern = re.compile(r"^(\S+?):(\d+):(\d+): (TEN\d+) ", re.M)
    assert [(path, line, column, code) for path, line, column, code in pattern.findall(by_flake8)
            if path == "no_import.py"] == [("no_import.py", "3", "12", "TEN901")]
    assert sorted(pattern.findall(by_flake8)) == sorted(pattern.findall(by_cli))


OPINIONATED = "import torch\n\n\ndef init(p: torch.nn.Parameter):\n    p.data.zero_()\n"


def test_opinionated_codes_are_off_by_default(tmp_path):
    """TEN901 is bugbear-style: flake8 ignores it by default, ``--extend-select TEN9`` turns it on."""
    path = tmp_path / "init.py"
    path.write_text(OPINIONATED)
    assert flake8(str(path)).stdout == ""
    extended = flake8("--extend-select", "TEN9", str(path)).stdout
    assert [row.split(":")[1:4] for row in extended.splitlines()] == [["5", "5", " TEN901 p.data is a legacy spelling whose writes autograd's version counter never sees; write under torch.no_grad() on the tensor itself"]]
    by_cli = run_tensorcopy_fix(["--no-fix", "--no-cache", str(path)], tmp_path)
    assert (by_cli.returncode, by_cli.stdout) == (0, "")
    selected = run_tensorcopy_fix(["--no-fix", "--no-cache", "--select", "TEN9", str(path)], tmp_path)
    assert selected.returncode == 1
    assert selected.stdout.startswith(f"{path}:5:5: TEN901 p.data is a legacy spelling")


# One hazard (TEN101, line 9) and two opinions (TEN901 line 5, TEN902 line 10).
HAZARD_AND_OPINIONS = (
    "import torch\n\n\ndef init(p: torch.nn.Parameter):\n    p.data.zero_()\n\n\n"
    "def copies(t: torch.Tensor, n: int):\n    a = torch.tensor(t)\n    b = torch.Tensor(torch.ones(n))\n"
    "    return a, b\n"
)


@pytest.mark.parametrize("options, codes", [
    (["--select", "TEN"], ["TEN101"]),  # flake8 alone would let this explicit prefix override our TEN9 ignore
    (["--select", "TEN,E"], ["TEN101"]),
    (["--select", "TEN9"], ["TEN901", "TEN902"]),
    (["--select", "TEN901"], ["TEN901"]),
    (["--select", "TEN1,TEN902"], ["TEN101", "TEN902"]),
    (["--extend-select", "TEN9"], ["TEN901", "TEN101", "TEN902"]),
    (["--enable-extensions", "TEN"], ["TEN101"]),
    (["--config", "setup.cfg"], ["TEN101", "TEN902"]),
])
def test_an_opinion_shows_only_where_a_selection_names_it(tmp_path, options, codes):
    """``TEN`` selects every hazard, never an opinion: TEN9xx need ``TEN9`` or their own code,
    from the command line or a configuration file (setup.cfg: ``extend-select = TEN902``)."""
    (tmp_path / "snippet.py").write_text(HAZARD_AND_OPINIONS)
    (tmp_path / "setup.cfg").write_text("[flake8]\nextend-select = TEN902\n")
    result = flake8("--isolated", *options, "snippet.py", cwd=tmp_path) if "--config" not in options else \
        flake8(*options, "snippet.py", cwd=tmp_path)
    assert [row.split(":")[3].split()[0] for row in result.stdout.splitlines()] == codes


@pytest.mark.parametrize("select, codes", [
    ("TEN", ["TEN101"]), ("TEN9", ["TEN901", "TEN902"]), ("TEN902", ["TEN902"]), ("TEN1,TEN901", ["TEN901", "TEN101"]),
])
def test_tensorcopy_fix_selects_opinions_as_flake8_does(tmp_path, select, codes):
    (tmp_path / "snippet.py").write_text(HAZARD_AND_OPINIONS)
    result = run_tensorcopy_fix(["--no-fix", "--no-cache", "-q", "--select", select, "snippet.py"], tmp_path)
    assert [row.split(":")[3].split()[0] for row in result.stdout.splitlines()] == codes
