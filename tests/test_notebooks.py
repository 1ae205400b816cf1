"""Notebooks (``.ipynb``) through the real ``tensorcopy-fix``, in subprocesses on files in
``tmp_path``: exact output lines, exit codes and bytes written (cells, layout, outputs and
magics kept)."""

import json
import re
import subprocess
import sys

import pytest

from conftest import ROOT, checkout_env, run_tensorcopy_fix
from flake8_tensorcopy.notebooks import NotANotebook, read_notebook

KERNEL = {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
          "language_info": {"name": "python", "version": "3.11.7"}}
OUTPUT = {"name": "stdout", "output_type": "stream", "text": ["tensor([1., 1., 1.])\n"]}


def code(source, outputs=(), count=None):
    return {"cell_type": "code", "execution_count": count, "metadata": {"tags": ["keep"]},
            "outputs": list(outputs), "source": source}


def notebook(*cells, metadata=KERNEL):
    return {"cells": list(cells), "metadata": metadata, "nbformat": 4, "nbformat_minor": 5}


def as_jupyter_writes(document, indent=1, ensure_ascii=False, ending="\n"):
    return json.dumps(document, indent=indent, ensure_ascii=ensure_ascii) + ending


def tensorcopy_fix(*args, cwd):
    return run_tensorcopy_fix(["--no-cache", *map(str, args)], cwd)


# An alias made in cell 2 and written in cell 3; magics of every kind around the code, a timed
# cell (its body is Python the kernel runs) and a shell cell (left out).
TRAINING = notebook(
    {"cell_type": "markdown", "metadata": {}, "source": ["# Weights\n", "A backup that is not one."]},
    code(["%matplotlib inline\n", "import torch\n", "\n", "w = torch.ones(3)\n", "backup = w.detach()"],
         outputs=[OUTPUT], count=1),
    code(["!pip list | grep torch\n", "w.mul_(2)\n", "torch.tensor?\n", "t = torch.tensor(w)"], count=2),
    code(["%%timeit\n", "u = torch.tensor(w)"], count=3),
    code(["%%bash\n", "python -c 'torch.tensor(w)'"], count=4),
)
BACKUP_MESSAGE = ("'backup' shares memory with 'w' (detach() does not copy): 'w' is written in place on line 2 "
                  "of cell 3 and 'backup' is kept as a snapshot (its name says so); use w.detach().clone()")


def copy_message(name):
    return f"torch.tensor() on tensor '{name}' copies it detached and warns; use {name}.detach().clone()"


COPY_MESSAGE = copy_message("w")


def test_the_code_cells_are_one_module_and_findings_name_their_cell(tmp_path):
    (tmp_path / "train.ipynb").write_text(as_jupyter_writes(TRAINING), encoding="utf-8")
    run = tensorcopy_fix("--no-fix", "train.ipynb", cwd=tmp_path)
    assert run.stdout.splitlines() == [
        f"train.ipynb:cell 2:5:10: TEN203 {BACKUP_MESSAGE}",
        f"train.ipynb:cell 3:4:5: TEN101 {COPY_MESSAGE} [*]",
        f"train.ipynb:cell 4:2:5: TEN101 {COPY_MESSAGE} [*]",
    ]
    assert run.returncode == 1


def test_fixes_go_back_into_the_cells_with_layout_outputs_and_magics_kept(tmp_path):
    path = tmp_path / "train.ipynb"
    path.write_text(as_jupyter_writes(TRAINING), encoding="utf-8")
    run = tensorcopy_fix("--unsafe-fixes", "--show-fixes", "train.ipynb", cwd=tmp_path)
    expected = json.loads(json.dumps(TRAINING))
    expected["cells"][1]["source"][4] = "backup = w.detach().clone()"
    expected["cells"][2]["source"][3] = "t = w.detach().clone()"
    expected["cells"][3]["source"][1] = "u = w.detach().clone()"
    assert path.read_text(encoding="utf-8") == as_jupyter_writes(expected)
    assert run.stdout.splitlines() == [
        "train.ipynb:cell 2:5:10: fixed TEN203",
        "train.ipynb:cell 3:4:5: fixed TEN101",
        "train.ipynb:cell 4:2:5: fixed TEN101",
    ]
    assert (run.returncode, run.stderr) == (0, "fixed 3 findings in 1 file; 0 left\n")


@pytest.mark.parametrize("indent, ensure_ascii, ending", [(2, True, ""), (4, False, "\n"), (1, True, "\n")])
def test_a_fix_keeps_the_json_layout_it_found(tmp_path, indent, ensure_ascii, ending):
    document = notebook(code("import torch\n\nlabel = 'température'\nx = torch.ones(2)\ny = torch.tensor(x)\n"))
    path = tmp_path / "nb.ipynb"
    path.write_text(as_jupyter_writes(document, indent, ensure_ascii, ending), encoding="utf-8")
    run = tensorcopy_fix("nb.ipynb", cwd=tmp_path)
    document["cells"][0]["source"] = document["cells"][0]["source"].replace("torch.tensor(x)", "x.detach().clone()")
    assert path.read_text(encoding="utf-8") == as_jupyter_writes(document, indent, ensure_ascii, ending)
    assert run.returncode == 0


def test_a_layout_that_cannot_be_kept_is_an_error_and_the_file_is_untouched(tmp_path):
    path = tmp_path / "nb.ipynb"
    compact = json.dumps(notebook(code("import torch\nx = torch.ones(2)\ny = torch.tensor(x)\n")),
                         separators=(",", ":"))
    path.write_text(compact, encoding="utf-8")
    run = tensorcopy_fix("nb.ipynb", cwd=tmp_path)
    assert path.read_text(encoding="utf-8") == compact
    assert run.stderr.splitlines()[0].startswith("nb.ipynb: cannot write: its JSON layout cannot be kept")
    assert run.stdout.splitlines() == [f"nb.ipynb:cell 1:3:5: TEN101 {copy_message('x')} [*]"]
    assert run.returncode == 2


def test_invalid_json_is_reported_and_left_untouched(tmp_path):
    path = tmp_path / "broken.ipynb"
    path.write_bytes(b'{"cells": [\n')
    run = tensorcopy_fix("broken.ipynb", cwd=tmp_path)
    assert run.stderr.splitlines() == [
        "broken.ipynb: cannot parse: invalid JSON (Expecting value: line 2 column 1)",
        "fixed 0 findings in 0 files; 0 left; 1 file with errors",
    ]
    assert path.read_bytes() == b'{"cells": [\n'
    assert run.returncode == 2


def test_a_cell_that_does_not_parse_is_named_and_the_notebook_left_untouched(tmp_path):
    text = as_jupyter_writes(notebook(code("import torch\nx = torch.ones(2)"), code("def f(:\n    pass\n")))
    path = tmp_path / "nb.ipynb"
    path.write_text(text, encoding="utf-8")
    run = tensorcopy_fix("nb.ipynb", cwd=tmp_path)
    assert run.stderr.splitlines()[0] == "nb.ipynb: cannot parse: invalid syntax (<unknown>, cell 2, line 1)"
    assert (run.returncode, path.read_text(encoding="utf-8")) == (2, text)


def test_directories_are_searched_for_notebooks_but_not_their_checkpoints(tmp_path):
    text = as_jupyter_writes(notebook(code("import torch\nx = torch.ones(2)\ny = torch.tensor(x)\n")))
    (tmp_path / "work" / ".ipynb_checkpoints").mkdir(parents=True)
    (tmp_path / "work" / "nb.ipynb").write_text(text, encoding="utf-8")
    (tmp_path / "work" / ".ipynb_checkpoints" / "nb-checkpoint.ipynb").write_text(text, encoding="utf-8")
    run = tensorcopy_fix("--no-fix", "work", cwd=tmp_path)
    assert [line.split(": TEN")[0] for line in run.stdout.splitlines()] == ["work/nb.ipynb:cell 1:3:5"]


def test_json_sarif_and_github_carry_the_cell(tmp_path):
    (tmp_path / "train.ipynb").write_text(as_jupyter_writes(TRAINING), encoding="utf-8")
    document = json.loads(tensorcopy_fix("--no-fix", "--output-format", "json", "train.ipynb", cwd=tmp_path).stdout)
    assert [(f["path"], f["cell"], f["line"], f["column"], f["end_line"], f["end_column"], f["fix"]["edits"])
            for f in document["findings"]] == [
        ("train.ipynb", 2, 5, 10, 5, 20,
         [{"line": 5, "column": 10, "end_line": 5, "end_column": 20, "content": "w.detach().clone()"}]),
        ("train.ipynb", 3, 4, 5, 4, 20,
         [{"line": 4, "column": 5, "end_line": 4, "end_column": 20, "content": "w.detach().clone()"}]),
        ("train.ipynb", 4, 2, 5, 2, 20,
         [{"line": 2, "column": 5, "end_line": 2, "end_column": 20, "content": "w.detach().clone()"}]),
    ]
    sarif = json.loads(tensorcopy_fix("--no-fix", "--output-format", "sarif", "train.ipynb", cwd=tmp_path).stdout)
    second = sarif["runs"][0]["results"][1]
    assert second["message"]["text"] == f"cell 3:4:5: {COPY_MESSAGE}"
    assert second["locations"] == [{"physicalLocation": {"artifactLocation": {"uri": "train.ipynb",
                                                                              "uriBaseId": "%SRCROOT%"}}}]
    assert second["properties"] == {"cell": 3, "startLine": 4, "startColumn": 5, "endLine": 4, "endColumn": 20}
    github = tensorcopy_fix("--no-fix", "--output-format", "github", "train.ipynb", cwd=tmp_path).stdout
    assert github.splitlines()[1] == f"::warning file=train.ipynb,title=TEN101 (cell 3%3A4%3A5)::{COPY_MESSAGE}"


def test_diff_is_a_patch_of_the_notebook_file(tmp_path):
    path = tmp_path / "train.ipynb"
    path.write_text(as_jupyter_writes(TRAINING), encoding="utf-8")
    run = tensorcopy_fix("--diff", "train.ipynb", cwd=tmp_path)
    changed = [line for line in run.stdout.splitlines() if line[:1] in "+-" and line[:3] not in ("+++", "---")]
    assert changed == ['-    "t = torch.tensor(w)"', '+    "t = w.detach().clone()"',
                       '-    "u = torch.tensor(w)"', '+    "u = w.detach().clone()"']
    assert path.read_text(encoding="utf-8") == as_jupyter_writes(TRAINING)
    assert run.returncode == 1


def test_nothing_is_executed(tmp_path):
    document = notebook(code(["!touch shell-ran\n", "%run -i make_file.py\n", "import torch\n"]))
    (tmp_path / "nb.ipynb").write_text(as_jupyter_writes(document), encoding="utf-8")
    (tmp_path / "make_file.py").write_text("open('python-ran', 'w').close()\n", encoding="utf-8")
    assert tensorcopy_fix("nb.ipynb", cwd=tmp_path).returncode == 0
    assert sorted(path.name for path in tmp_path.iterdir()) == ["make_file.py", "nb.ipynb"]


@pytest.mark.parametrize("line", [
    "%time y = f(x)", "  %debug", "!ls -la", "files = !ls", "t = %timeit -o f()", "a, b = %sx ls",
    "?torch.tensor", "torch.tensor??", "x?", "%pinfo x",
])
def test_ipython_lines_are_masked_at_their_place(line):
    module = read_notebook(json.dumps(notebook(code(f"import torch\n{line}\nz = 1"))).encode())
    masked = module.source.splitlines()
    assert masked[2] == f"{line[: len(line) - len(line.lstrip())]}pass  # tensorcopy0-magic 0"
    assert masked[1:2] + masked[3:] == ["import torch", "z = 1"]
    assert module.cell_sources(module.source) == {0: f"import torch\n{line}\nz = 1"}


@pytest.mark.parametrize("line", ["a = b % c", "x != y", "y = x  # really?", "print('?')", "s = '%d' % n"])
def test_python_lines_are_not_masked(line):
    module = read_notebook(json.dumps(notebook(code(line))).encode())
    assert module.source.splitlines()[1] == line


@pytest.mark.parametrize("cell", [
    'message = ("%d tensors"\n           % count)\n',  # a continuation inside brackets
    'total = 1 + \\\n    !flag\n',  # after a backslash (Python would refuse it, IPython too)
    'doc = """\n!not a shell line\nwhat?\n"""\n',  # inside a string
])
def test_a_line_that_continues_a_statement_is_python_whatever_it_starts_with(cell):
    module = read_notebook(json.dumps(notebook(code(cell))).encode())
    assert module.source == "# tensorcopy0-cell\n" + cell


def test_a_continued_shell_line_is_masked_whole_at_its_indentation_and_a_cell_magic_left_out():
    module = read_notebook(json.dumps(notebook(code("!pip install \\\n    torch\nx = 1\n"),
                                               code("%%bash\necho 1\n"))).encode())
    assert module.source == ("# tensorcopy0-cell\npass  # tensorcopy0-magic 0\n"
                             "pass  # tensorcopy0-magic 1\nx = 1\n")
    assert [cell.index for cell in module.cells] == [0]


@pytest.mark.parametrize("cell", [
    "!pip install \\\n    torch \\\n        numpy\n",
    "for step in range(2):\n    %time f(step) \\\n  -o\n    t = torch.ones(2)\n",
    "files = !ls \\\n\t-la\n",
])
def test_a_magic_continued_onto_an_indented_line_is_masked_and_restored_unchanged_by_a_fix(tmp_path, cell):
    """The continuation's placeholder is at the magic's own indentation (an indented ``pass``
    after a ``pass`` would not parse): the cell is linted and fixed around it."""
    document = notebook(code("import torch\nx = torch.ones(2)\n"), code(cell + "y = torch.tensor(x)\n"))
    path = tmp_path / "nb.ipynb"
    path.write_text(as_jupyter_writes(document), encoding="utf-8")
    run = tensorcopy_fix("nb.ipynb", cwd=tmp_path)
    assert (run.returncode, run.stderr) == (0, "fixed 1 finding in 1 file; 0 left\n")
    document["cells"][1]["source"] = cell + "y = x.detach().clone()\n"
    assert path.read_text(encoding="utf-8") == as_jupyter_writes(document)


@pytest.mark.parametrize("magic, linted", [
    ("%%time", True), ("%%timeit -n 3 -r 1", True), ("%%capture captured", True), ("%%debug", True),
    ("%%prun -s cumulative", True),
    ("%%bash", False), ("%%html", False), ("%%python", False), ("%%pypy", False), ("%%writefile train.py", False),
])
def test_a_cell_magic_with_a_python_body_run_in_the_kernel_is_linted(tmp_path, magic, linted):
    document = notebook(code("import torch\nx = torch.ones(2)\n"), code(f"{magic}\ny = torch.tensor(x)\n"))
    path = tmp_path / "nb.ipynb"
    path.write_text(as_jupyter_writes(document), encoding="utf-8")
    report = tensorcopy_fix("--no-fix", "nb.ipynb", cwd=tmp_path)
    assert report.stdout.splitlines() == ([f"nb.ipynb:cell 2:2:5: TEN101 {copy_message('x')} [*]"] if linted else [])
    tensorcopy_fix("nb.ipynb", cwd=tmp_path)
    if linted:  # the magic line comes back as it was
        document["cells"][1]["source"] = f"{magic}\ny = x.detach().clone()\n"
    assert path.read_text(encoding="utf-8") == as_jupyter_writes(document)


@pytest.mark.parametrize("indent, ensure_ascii, ending", [(1, False, "\n"), (2, True, "")])
def test_a_notebook_on_stdin_is_linted_and_fixed_as_its_file_would_be(tmp_path, indent, ensure_ascii, ending):
    text = as_jupyter_writes(TRAINING, indent, ensure_ascii, ending)
    path = tmp_path / "train.ipynb"
    path.write_text(text, encoding="utf-8")
    from_file = tensorcopy_fix("--no-fix", "train.ipynb", cwd=tmp_path)
    report = run_tensorcopy_fix(["--no-cache", "--no-fix", "--stdin-filename", "train.ipynb", "-"], tmp_path, text)
    assert (report.stdout, report.returncode) == (from_file.stdout, 1) and "cell 4:2:5: TEN101" in report.stdout

    fixed = run_tensorcopy_fix(["--no-cache", "--unsafe-fixes", "--stdin-filename", "train.ipynb", "-"], tmp_path,
                               text)
    tensorcopy_fix("--unsafe-fixes", "train.ipynb", cwd=tmp_path)
    assert fixed.stdout == path.read_text(encoding="utf-8") != text
    assert (fixed.returncode, fixed.stderr) == (0, "fixed 3 findings in 1 file; 0 left\n")


def test_a_notebook_on_stdin_that_cannot_be_fixed_comes_back_unchanged(tmp_path):
    compact = json.dumps(notebook(code("import torch\nx = torch.ones(2)\ny = torch.tensor(x)\n")),
                         separators=(",", ":"))
    run = run_tensorcopy_fix(["--no-cache", "--stdin-filename", "nb.ipynb", "-"], tmp_path, compact)
    assert (run.stdout, run.returncode) == (compact, 2)
    assert run.stderr.startswith("nb.ipynb: cannot write: its JSON layout cannot be kept")
    broken = run_tensorcopy_fix(["--no-cache", "--stdin-filename", "nb.ipynb", "-"], tmp_path, '{"cells": [\n')
    assert (broken.stdout, broken.returncode) == ('{"cells": [\n', 2)
    assert broken.stderr == "nb.ipynb: cannot parse: invalid JSON (Expecting value: line 2 column 1)\n"


def test_a_marker_the_cells_already_contain_is_not_used():
    module = read_notebook(json.dumps(notebook(code("# tensorcopy0-cell\n%ls"))).encode())
    assert module.source == "# tensorcopy1-cell\n# tensorcopy0-cell\npass  # tensorcopy1-magic 0\n"
    assert module.cell_sources(module.source) == {0: "# tensorcopy0-cell\n%ls"}


def test_a_notebook_of_another_language_has_no_code_to_read():
    document = notebook(code("x <- c(1, 2)"), metadata={"kernelspec": {"language": "R", "name": "ir"}})
    assert read_notebook(json.dumps(document).encode()).source == ""


@pytest.mark.parametrize("raw, reason", [
    (b"[]", "not a notebook (no list of cells; nbformat 4 is read)"),
    (b'{"worksheets": []}', "not a notebook (no list of cells; nbformat 4 is read)"),
    (b'{"cells": [{"cell_type": "code", "source": 3}]}', "cell 1: its source is not text"),
    (b'{"cells": "\xff"}', "not UTF-8 (invalid start byte at byte 11)"),
])
def test_what_is_not_a_notebook_says_why(raw, reason):
    with pytest.raises(NotANotebook) as error:
        read_notebook(raw)
    assert str(error.value) == reason


def test_the_readme_nbqa_command_runs_the_flake8_plugin_on_a_notebook(tmp_path):
    pytest.importorskip("nbqa", reason="nbqa is not installed (the test extras install it)")
    (tmp_path / "train.ipynb").write_text(as_jupyter_writes(TRAINING), encoding="utf-8")
    (command,) = re.findall(r"^nbqa flake8 .*$", (ROOT / "README.md").read_text(encoding="utf-8"), flags=re.M)
    arguments = command.replace("notebooks/", "train.ipynb").split()
    run = subprocess.run([sys.executable, "-m", *arguments], cwd=tmp_path, capture_output=True, text=True,
                         timeout=120, env=checkout_env())
    # nbqa numbers code cells only and reads the body of a %%timeit cell as Python; lines named
    # inside a message are those of its temporary file
    assert [line.split(" '")[0] for line in run.stdout.splitlines()] == [
        "train.ipynb:cell_1:5:10: TEN203", "train.ipynb:cell_2:4:5: TEN101 torch.tensor() on tensor",
        "train.ipynb:cell_3:2:5: TEN101 torch.tensor() on tensor"]
    assert run.returncode == 1
