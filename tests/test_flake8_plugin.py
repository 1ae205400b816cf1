"""The real flake8 executable, in a subprocess, with our plugin installed."""

import subprocess
import sys

from conftest import expectations, mismatches, rule_fixtures


def flake8(*args, cwd=None):
    return subprocess.run(
        [sys.executable, "-m", "flake8", *args], capture_output=True, text=True, cwd=cwd
    )


def test_version_names_the_plugin():
    result = flake8("--version")
    assert result.returncode == 0
    assert "flake8-tensorcopy" in result.stdout


def check_fixtures(jobs: str) -> None:
    """flake8 over every fixture reports exactly the marked findings: lines, codes, columns and
    messages as it prints them."""
    result = flake8("--select", "TEN", "-j", jobs, *map(str, rule_fixtures()))
    found = {str(path): [] for path in rule_fixtures()}
    for row in result.stdout.splitlines():
        path, line, column, message = row.split(":", 3)
        code, text = message.split(maxsplit=1)
        found[path].append((int(line), code, int(column), text))
    for path in rule_fixtures():
        assert mismatches(found[str(path)], expectations(path.read_text(encoding="utf-8"))) == [], path.name
    assert result.returncode == 1


def test_fixtures_report_exactly_the_marked_findings():
    check_fixtures(jobs="1")


def test_parallel_jobs_report_the_same_marked_findings():
    check_fixtures(jobs="2")


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
    path.write_text("import torch\n\n\ndef f(t: torch.Tensor):\n    return torch.tensor(t.clone().detach())\n")
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
