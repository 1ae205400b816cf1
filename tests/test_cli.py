"""The ``tensorcopy-fix`` command on copies of the fixtures: its ``main`` with real files,
standard streams and exit status, in this process (``conftest.run_tensorcopy_fix``), and in a
subprocess where a process is what is tested (``python -m``, worker processes).

Every test works in ``tmp_path`` (also the command's working directory, so a
``pyproject.toml`` there is the configuration) and checks exact output, exit code and bytes.
"""

import functools
import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import FIXTURES, ROOT, TENSORCOPY_FIX, checkout_env, run_tensorcopy_fix
from flake8_tensorcopy import __version__
from flake8_tensorcopy.engine import lint_source
from flake8_tensorcopy.fixer import fix_source, fixable, suppressed
from flake8_tensorcopy.output import rule_url
from flake8_tensorcopy.rules import DEFAULT_RULES, RULES_BY_CODE


# Every finding has a safe fix.
SAFE = "import torch\n\n\nt = torch.ones(3)\nt_copied = torch.tensor(t)\n"
SAFE_FIXED = "import torch\n\n\nt = torch.ones(3)\nt_copied = t.detach().clone()\n"
SAFE_MESSAGE = "torch.tensor() on tensor 't' copies it detached and warns; use t.detach().clone()"


def tensorcopy_fix(*args, cwd, stdin=None, cache=False):
    """Run the command; text in and out, or bytes when ``stdin`` is bytes. The cache is off
    unless asked for (test_cache.py covers it), so directory listings stay exact. In this
    process, but in a child when it runs workers (``-j``)."""
    binary = isinstance(stdin, bytes)
    args = [*([] if cache else ["--no-cache"]), *map(str, args)]
    if "-j" in args or "--jobs" in args:
        return subprocess.run([*TENSORCOPY_FIX, *args], cwd=cwd, input=stdin, capture_output=True, text=not binary,
                              timeout=60, env=checkout_env())
    return run_tensorcopy_fix(args, cwd, stdin, text=not binary)


def copy_fixture(code, directory, name=None):
    target = Path(directory) / (name or f"{code}.py")
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(FIXTURES / f"{code}.py", target)
    return target


@functools.lru_cache(maxsize=None)
def fixture_text(name):
    return (FIXTURES / name).read_text(encoding="utf-8")


@functools.lru_cache(maxsize=None)
def findings(text, rules=DEFAULT_RULES):
    """What ``--no-fix`` reports for a text by default: lint findings not silenced by ``# noqa``
    (the opinionated TEN9xx are off unless selected)."""
    lines = text.splitlines()
    return [finding for finding in lint_source(text, rules=rules) if not suppressed(finding, lines)]


def report_lines(path, text, rules=DEFAULT_RULES, unsafe=False):
    """The text lines ``--no-fix`` prints for one file, in order of line, column and code."""
    return [
        f"{path}:{f.line}:{f.col + 1}: {f.code} {f.message}{' [*]' if fixable(f, unsafe) else ''}"
        for f in sorted(findings(text, rules), key=lambda f: (f.line, f.col, f.code))
    ]


# --- fixing in place -------------------------------------------------------------------


def test_default_mode_applies_safe_fixes_only(tmp_path):
    copy_fixture("TEN101", tmp_path)
    copy_fixture("TEN207", tmp_path)
    ten101, ten207 = fixture_text("TEN101.py"), fixture_text("TEN207.py")
    run = tensorcopy_fix("TEN101.py", "TEN207.py", cwd=tmp_path)
    expected_101, expected_207 = fix_source(ten101, DEFAULT_RULES), fix_source(ten207, DEFAULT_RULES)
    assert (tmp_path / "TEN101.py").read_text(encoding="utf-8") == expected_101.source
    assert (tmp_path / "TEN207.py").read_bytes() == (FIXTURES / "TEN207.py").read_bytes()  # unsafe fixes only
    assert expected_101.source != ten101 and not expected_207.applied
    applied = len(expected_101.applied)
    remaining = expected_101.remaining + expected_207.remaining
    unsafe = sum(1 for f in remaining if f.fix is not None and not f.fix.safe)
    assert run.returncode == 1
    assert unsafe > 0
    assert run.stderr == (
        f"fixed {applied} findings in 1 file; {len(remaining)} left in 2 files; {unsafe} with --unsafe-fixes\n"
    )
    assert run.stdout.splitlines() == (
        report_lines("TEN101.py", expected_101.source) + report_lines("TEN207.py", ten207)
    )


def test_fix_then_nothing_left(tmp_path):
    (tmp_path / "safe.py").write_text(SAFE)
    first = tensorcopy_fix("safe.py", cwd=tmp_path)
    # ruff's --fix convention: every finding fixed is a pass
    assert (first.returncode, first.stdout, first.stderr) == (0, "", "fixed 1 finding in 1 file; 0 left\n")
    assert (tmp_path / "safe.py").read_text() == SAFE_FIXED == fix_source(SAFE).source
    second = tensorcopy_fix("safe.py", cwd=tmp_path)
    assert (second.returncode, second.stdout, second.stderr) == (0, "", "fixed 0 findings in 0 files; 0 left\n")
    assert (tmp_path / "safe.py").read_text() == SAFE_FIXED


def test_unsafe_fixes_write_the_golden_files(tmp_path):
    codes = ["TEN101", "TEN104", "TEN207", "TEN206"]
    for code in codes:
        copy_fixture(code, tmp_path)
    run = tensorcopy_fix("--unsafe-fixes", "-q", ".", cwd=tmp_path)
    for code in codes:
        assert (tmp_path / f"{code}.py").read_text(encoding="utf-8") == fixture_text(f"{code}.fixed.py"), code
    # left: the one finding without a fix (a parameter bound to a module's attribute), exit 1
    line = next(number for number, text in enumerate(fixture_text("TEN206.py").splitlines(), 1)
                if "self.backup = self.w" in text)
    assert run.returncode == 1
    assert [left.split(" ", 2)[:2] for left in run.stdout.splitlines()] == [[f"TEN206.py:{line}:23:", "TEN206"]]
    assert run.stderr == ""  # -q: no summary line


def test_show_fixes_lists_every_fix_on_stdout(tmp_path):
    (tmp_path / "safe.py").write_text(SAFE)
    run = tensorcopy_fix("--show-fixes", "safe.py", cwd=tmp_path)
    assert (run.returncode, run.stdout) == (0, "safe.py:5:12: fixed TEN101\n")
    assert run.stderr == "fixed 1 finding in 1 file; 0 left\n"
    # a document on stdout stays a document: the fixes go to stderr
    (tmp_path / "safe.py").write_text(SAFE)
    as_json = tensorcopy_fix("--show-fixes", "--output-format", "json", "-q", "safe.py", cwd=tmp_path)
    assert json.loads(as_json.stdout)["files"][0]["fixes"] == 1
    assert as_json.stderr == "safe.py:5:12: fixed TEN101\n"


# --- --check and --diff ------------------------------------------------------------------


def _freeze(path):
    """Set an old mtime, so a rewrite within the same clock tick still shows."""
    os.utime(path, ns=(1_000_000_000_000_000_000, 1_000_000_000_000_000_000))
    return path.read_bytes(), path.stat().st_mtime_ns


def test_check_writes_nothing(tmp_path):
    (tmp_path / "safe.py").write_text(SAFE)
    (tmp_path / "clean.py").write_text(SAFE_FIXED)
    before = {name: _freeze(tmp_path / name) for name in ("safe.py", "clean.py")}
    dirty = tensorcopy_fix("--check", "safe.py", cwd=tmp_path)
    assert dirty.returncode == 1
    assert dirty.stdout == "would fix 1 finding in safe.py\n"
    assert dirty.stderr == "1 finding in 1 file; 1 fixable, 0 with --unsafe-fixes\n"
    clean = tensorcopy_fix("--check", "clean.py", cwd=tmp_path)
    assert (clean.returncode, clean.stdout, clean.stderr) == (0, "", "no findings (1 file checked)\n")
    for name, (data, mtime) in before.items():
        assert ((tmp_path / name).read_bytes(), (tmp_path / name).stat().st_mtime_ns) == (data, mtime), name
    assert sorted(os.listdir(tmp_path)) == ["clean.py", "safe.py"]


def test_diff_prints_a_unified_diff_and_writes_nothing(tmp_path):
    (tmp_path / "safe.py").write_text(SAFE)
    before = _freeze(tmp_path / "safe.py")
    run = tensorcopy_fix("--diff", "safe.py", cwd=tmp_path)
    assert run.returncode == 1
    assert run.stdout == (
        "--- a/safe.py\n"
        "+++ b/safe.py\n"
        "@@ -2,4 +2,4 @@\n"
        " \n"
        " \n"
        " t = torch.ones(3)\n"
        "-t_copied = torch.tensor(t)\n"
        "+t_copied = t.detach().clone()\n"
    )
    assert run.stderr == "would fix 1 finding in 1 file; 0 left\n"
    assert ((tmp_path / "safe.py").read_bytes(), (tmp_path / "safe.py").stat().st_mtime_ns) == before


def test_diff_marks_a_missing_final_newline_and_keeps_form_feed_lines(tmp_path):
    (tmp_path / "a_no_newline.py").write_text(SAFE.rstrip("\n"))
    (tmp_path / "b_form_feed.py").write_text(SAFE.replace("\n\n\n", "\n\x0c\n"))
    run = tensorcopy_fix("--diff", "-q", "a_no_newline.py", "b_form_feed.py", cwd=tmp_path)
    assert run.returncode == 1
    assert run.stdout == (
        "--- a/a_no_newline.py\n"
        "+++ b/a_no_newline.py\n"
        "@@ -2,4 +2,4 @@\n"
        " \n"
        " \n"
        " t = torch.ones(3)\n"
        "-t_copied = torch.tensor(t)\n"
        "\\ No newline at end of file\n"
        "+t_copied = t.detach().clone()\n"
        "\\ No newline at end of file\n"
        "--- a/b_form_feed.py\n"
        "+++ b/b_form_feed.py\n"
        "@@ -1,4 +1,4 @@\n"
        " import torch\n"
        " \x0c\n"
        " t = torch.ones(3)\n"
        "-t_copied = torch.tensor(t)\n"
        "+t_copied = t.detach().clone()\n"
    )
    assert (tmp_path / "a_no_newline.py").read_text() == SAFE.rstrip("\n")


# --- --no-fix, --select, --ignore --------------------------------------------------------


def test_no_fix_reports_findings_with_flake8_positions(tmp_path):
    (tmp_path / "safe.py").write_text(SAFE)
    copy_fixture("TEN207", tmp_path)
    run = tensorcopy_fix("--no-fix", "safe.py", "TEN207.py", cwd=tmp_path)
    lines = run.stdout.splitlines()
    assert lines[-1] == f"safe.py:5:12: TEN101 {SAFE_MESSAGE} [*]"  # files in order of their paths
    assert lines == report_lines("TEN207.py", fixture_text("TEN207.py")) + report_lines("safe.py", SAFE)
    assert not any(line.endswith("[*]") for line in lines[:-1])  # TEN207 fixes are unsafe
    assert run.returncode == 1
    assert run.stderr == f"{len(lines)} findings in 2 files; 1 fixable, {len(lines) - 1} with --unsafe-fixes\n"
    assert (tmp_path / "safe.py").read_text() == SAFE


def test_no_fix_marks_unsafe_fixes_applicable_with_unsafe_fixes(tmp_path):
    copy_fixture("TEN207", tmp_path)
    run = tensorcopy_fix("--no-fix", "--unsafe-fixes", "TEN207.py", cwd=tmp_path)
    expected = report_lines("TEN207.py", fixture_text("TEN207.py"), unsafe=True)
    assert run.stdout.splitlines() == expected
    assert any(line.endswith("[*]") for line in expected)


def test_no_fix_on_a_clean_file_exits_0(tmp_path):
    (tmp_path / "clean.py").write_text(SAFE_FIXED)
    run = tensorcopy_fix("--no-fix", "clean.py", cwd=tmp_path)
    assert (run.returncode, run.stdout, run.stderr) == (0, "", "no findings (1 file checked)\n")


def _codes(run):
    return {line.split(": ")[1].split()[0] for line in run.stdout.splitlines()}


@pytest.mark.parametrize(
    "flags, runs",
    [
        (["--select", "TEN1"], lambda code: code.startswith("TEN1")),
        (["--select", "ten104"], lambda code: code == "TEN104"),
        (["--ignore", "TEN104"], lambda code: code != "TEN104"),
        (["--ignore", "TEN2"], lambda code: not code.startswith("TEN2")),
        (["--select", "TEN1,TEN3", "--ignore", "TEN101"], lambda code: code[3] in "13" and code != "TEN101"),
    ],
    ids=["select-prefix", "select-code", "ignore-code", "ignore-prefix", "both"],
)
def test_select_and_ignore_by_code_and_prefix(tmp_path, flags, runs):
    names = ["TEN101.py", "TEN104.py", "TEN207.py", "TEN302.py"]
    for name in names:
        copy_fixture(name[:-3], tmp_path)
    run = tensorcopy_fix("--no-fix", *flags, *names, cwd=tmp_path)
    expected = [line for name in names for line in report_lines(name, fixture_text(name)) if runs(line.split()[1])]
    everything = [line for name in names for line in report_lines(name, fixture_text(name))]
    assert run.stdout.splitlines() == expected
    assert 0 < len(expected) < len(everything)
    assert run.returncode == 1


def test_select_limits_what_is_fixed(tmp_path):
    copy_fixture("TEN101", tmp_path)
    run = tensorcopy_fix("--select", "TEN104", "TEN101.py", cwd=tmp_path)
    expected = fix_source(fixture_text("TEN101.py"), (RULES_BY_CODE["TEN104"],))
    assert [f.code for f in expected.applied] == ["TEN104"]
    assert (tmp_path / "TEN101.py").read_text(encoding="utf-8") == expected.source
    assert run.stderr == "fixed 1 finding in 1 file; 0 left\n"
    assert run.returncode == 0


@pytest.mark.parametrize("flags, bad", [(["--select", "TEN8"], "TEN8"), (["--ignore", "TEN104,XYZ1"], "XYZ1")])
def test_unknown_code_is_a_usage_error(tmp_path, flags, bad):
    (tmp_path / "safe.py").write_text(SAFE)
    run = tensorcopy_fix(*flags, "safe.py", cwd=tmp_path)
    assert run.returncode == 2
    assert run.stderr == f"tensorcopy-fix: {flags[0]}: unknown code or prefix: {bad}\n"
    assert (tmp_path / "safe.py").read_text() == SAFE


@pytest.mark.parametrize(
    "args, message",
    [
        ([], "give files or directories"),
        (["-", "safe.py"], "cannot be mixed"),
        (["missing.py"], "no such file or directory: missing.py"),
    ],
)
def test_usage_errors_exit_2(tmp_path, args, message):
    (tmp_path / "safe.py").write_text(SAFE)
    run = tensorcopy_fix(*args, cwd=tmp_path)
    assert run.returncode == 2
    assert message in run.stderr
    assert (tmp_path / "safe.py").read_text() == SAFE


# --- stdin ---------------------------------------------------------------------------------


def test_stdin_to_stdout(tmp_path):
    run = tensorcopy_fix("-", cwd=tmp_path, stdin=SAFE.encode())
    assert (run.returncode, run.stdout, run.stderr) == (0, SAFE_FIXED.encode(), b"fixed 1 finding in 1 file; 0 left\n")
    clean = tensorcopy_fix("-", cwd=tmp_path, stdin=SAFE_FIXED.encode())
    assert (clean.returncode, clean.stdout) == (0, SAFE_FIXED.encode())
    assert os.listdir(tmp_path) == []


def test_stdin_with_diff(tmp_path):
    run = tensorcopy_fix("--diff", "-q", "-", cwd=tmp_path, stdin=SAFE.encode())
    assert run.returncode == 1
    assert run.stdout.decode().splitlines()[:2] == ["--- a/-", "+++ b/-"]
    assert "-t_copied = torch.tensor(t)\n+t_copied = t.detach().clone()\n" in run.stdout.decode()


def test_stdin_keeps_its_encoding_and_bom(tmp_path):
    latin = "# -*- coding: latin-1 -*-\n" + SAFE.replace("(t)\n", "(t)  # café\n")
    run = tensorcopy_fix("-", cwd=tmp_path, stdin=latin.encode("latin-1"))
    assert run.returncode == 0
    assert run.stdout == fix_source(latin).source.encode("latin-1")
    assert run.stdout.decode("latin-1").endswith("t.detach().clone()  # café\n")
    bom = tensorcopy_fix("-", cwd=tmp_path, stdin=b"\xef\xbb\xbf" + SAFE.encode())
    assert bom.stdout == b"\xef\xbb\xbf" + SAFE_FIXED.encode()


def test_stdin_that_does_not_parse_comes_back_unchanged(tmp_path):
    broken = "import torch\r\n\r\ndef f(t: torch.Tensor):\r\n    return torch.tensor(t\r\n".encode()
    run = tensorcopy_fix("-", cwd=tmp_path, stdin=broken)
    assert run.returncode == 2
    assert run.stdout == broken
    assert run.stderr.startswith(b"-: cannot parse")


# --- many files -----------------------------------------------------------------------------


def _project(root):
    for code in ("TEN101", "TEN104", "TEN203", "TEN206", "TEN301"):
        copy_fixture(code, root)
    copy_fixture("TEN201", root, "sub/TEN201.py")
    (root / "sub" / "safe.py").write_text(SAFE)
    (root / "clean.py").write_text(SAFE_FIXED)
    return root


@pytest.mark.slow  # a parallel or subprocess-heavy run: left out of the default suite (< 3 min)
def test_jobs_2_gives_what_jobs_1_gives(tmp_path):
    one, two = _project(tmp_path / "one"), _project(tmp_path / "two")
    serial = tensorcopy_fix("-j", "1", ".", cwd=one)
    parallel = tensorcopy_fix("-j", "2", ".", cwd=two)
    assert (parallel.returncode, parallel.stdout, parallel.stderr) == (serial.returncode, serial.stdout, serial.stderr)
    assert serial.returncode == 1 and serial.stdout and serial.stderr.startswith("fixed ")
    files = sorted(path.relative_to(one) for path in one.rglob("*.py"))
    assert files == sorted(path.relative_to(two) for path in two.rglob("*.py"))
    for relative in files:
        assert (one / relative).read_bytes() == (two / relative).read_bytes(), relative
    assert (two / "TEN104.py").read_text(encoding="utf-8") == fix_source(fixture_text("TEN104.py")).source
    assert (two / "sub" / "safe.py").read_text() == SAFE_FIXED


def test_a_file_named_twice_is_processed_once(tmp_path):
    (tmp_path / "safe.py").write_text(SAFE)
    run = tensorcopy_fix("--check", "safe.py", "./safe.py", ".", cwd=tmp_path)
    assert run.stdout == "would fix 1 finding in safe.py\n"
    assert run.stderr == "1 finding in 1 file; 1 fixable, 0 with --unsafe-fixes\n"


def _tree(root):
    """Every file holds SAFE, so ``--check`` names exactly the files that were walked."""
    names = [
        "a.py", "gen_models.py", "ignored.py", "top_only.py", "notes.txt",
        "sub/b.py", "sub/ignored.py", "sub/top_only.py", "sub/local.py", "sub/deeper/c.py",
        "build/d.py", "sub/build/e.py",
        ".git/hooks/f.py", ".tox/py311/g.py", "__pycache__/h.py", "node_modules/i.py",
        "env/lib/j.py", ".venv/lib/k.py",
    ]
    for name in names:
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(SAFE)
    (root / "env" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (root / ".venv" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (root / ".gitignore").write_text("# generated\nignored.py\nbuild/\n/top_only.py\n")
    (root / "sub" / ".gitignore").write_text("local.py\n")


def _walked(run):
    return sorted(line.split(" in ", 1)[1] for line in run.stdout.splitlines())


def test_directory_walk_honours_gitignore_and_skips_tool_folders(tmp_path):
    _tree(tmp_path / "proj")
    run = tensorcopy_fix("--check", "proj", cwd=tmp_path)
    assert _walked(run) == [
        "proj/a.py", "proj/gen_models.py", "proj/sub/b.py", "proj/sub/deeper/c.py", "proj/sub/top_only.py",
    ]
    assert run.returncode == 1


def test_extend_exclude_pattern(tmp_path):
    _tree(tmp_path / "proj")
    run = tensorcopy_fix("--check", "--extend-exclude", "gen_*.py", "--extend-exclude", "deeper/", "proj", cwd=tmp_path)
    assert _walked(run) == ["proj/a.py", "proj/sub/b.py", "proj/sub/top_only.py"]


def test_exclude_replaces_the_default_list_and_gitignore_can_be_turned_off(tmp_path):
    """ruff's way to walk what the defaults skip: ``--exclude`` (``exclude``) replaces the
    list, ``--no-respect-gitignore`` (``respect-gitignore = false``) reads no .gitignore."""
    _tree(tmp_path / "proj")
    replaced = tensorcopy_fix("--check", "--exclude", "sub/", "proj", cwd=tmp_path)
    assert _walked(replaced) == ["proj/.git/hooks/f.py", "proj/.tox/py311/g.py", "proj/.venv/lib/k.py",
                                 "proj/__pycache__/h.py", "proj/a.py", "proj/env/lib/j.py", "proj/gen_models.py",
                                 "proj/node_modules/i.py"]
    everything = tensorcopy_fix("--check", "--no-respect-gitignore", "--extend-exclude", "sub/", "proj", cwd=tmp_path)
    assert _walked(everything) == ["proj/a.py", "proj/gen_models.py", "proj/ignored.py", "proj/top_only.py"]
    (tmp_path / "pyproject.toml").write_text('[tool.tensorcopy]\nrespect-gitignore = false\nexclude = []\n')
    configured = tensorcopy_fix("--check", "--extend-exclude", "sub/", "proj", cwd=tmp_path)
    assert _walked(configured) == sorted(set(_walked(replaced) + _walked(everything) + ["proj/build/d.py"]))


def _outside_and_project(tmp_path):
    """``outside/target.py`` (to be reached only through a symlink) and an empty ``proj``."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "target.py").write_text(SAFE)
    proj = tmp_path / "proj"
    proj.mkdir()
    return outside, proj


def test_symlinks_inside_a_walked_directory_are_skipped(tmp_path):
    outside, proj = _outside_and_project(tmp_path)
    (proj / "real.py").write_text(SAFE)
    (proj / "linked.py").symlink_to(outside / "target.py")
    (proj / "linked_dir").symlink_to(outside, target_is_directory=True)
    run = tensorcopy_fix(".", cwd=proj)
    assert run.returncode == 0
    assert run.stderr == "fixed 1 finding in 1 file; 0 left\n"
    assert (proj / "real.py").read_text() == SAFE_FIXED
    assert (outside / "target.py").read_text() == SAFE
    assert (proj / "linked.py").is_symlink()


def test_symlink_given_explicitly_is_not_written_through(tmp_path):
    (tmp_path / "target.py").write_text(SAFE)
    (tmp_path / "link.py").symlink_to(tmp_path / "target.py")
    (tmp_path / "other.py").write_text(SAFE)
    run = tensorcopy_fix("link.py", "other.py", cwd=tmp_path)
    assert run.returncode == 2
    assert "link.py: cannot write" in run.stderr and "symlink" in run.stderr
    assert (tmp_path / "target.py").read_text() == SAFE
    assert (tmp_path / "link.py").is_symlink()
    assert (tmp_path / "other.py").read_text() == SAFE_FIXED
    assert sorted(os.listdir(tmp_path)) == ["link.py", "other.py", "target.py"]


def test_never_written_through_a_symlinked_directory(tmp_path):
    outside, proj = _outside_and_project(tmp_path)
    (proj / "linked").symlink_to(outside, target_is_directory=True)
    (proj / "z_good.py").write_text(SAFE)
    run = tensorcopy_fix("linked", "linked/target.py", "z_good.py", cwd=proj)
    assert run.stderr.splitlines() == [
        "linked: cannot read: not a regular file (a directory, a symlink that is not followed)",
        "linked/target.py: cannot write: linked is a symlink",
        "fixed 1 finding in 1 file; 1 left in 1 file; 2 files with errors",
    ]
    assert run.returncode == 2
    assert (outside / "target.py").read_text() == SAFE
    assert (proj / "z_good.py").read_text() == SAFE_FIXED


# --- output formats and --explain -----------------------------------------------------------


def _without_edits(rows):
    return [dict(row, fix=None if row["fix"] is None else {k: v for k, v in row["fix"].items() if k != "edits"})
            for row in rows]


def _expected_rows():
    rows = []
    for path, text in (("TEN207.py", fixture_text("TEN207.py")), ("safe.py", SAFE)):  # in order of paths
        for f in sorted(findings(text), key=lambda f: (f.line, f.col, f.code)):
            fix = None if f.fix is None else {"safe": f.fix.safe, "applicable": fixable(f, False)}
            rows.append({"path": path, "line": f.line, "column": f.col + 1, "end_line": f.end_line,
                         "end_column": f.end_col + 1, "code": f.code, "message": f.message, "fix": fix,
                         "url": rule_url(f.code)})
    return rows


def test_json_output(tmp_path):
    (tmp_path / "safe.py").write_text(SAFE)
    copy_fixture("TEN207", tmp_path)
    run = tensorcopy_fix("--no-fix", "--output-format", "json", "safe.py", "TEN207.py", cwd=tmp_path)
    document = json.loads(run.stdout)
    assert (document["schema_version"], document["mode"]) == (1, "report")
    rows = document["findings"]
    assert _without_edits(rows) == _expected_rows()
    edit = {"line": 5, "column": 12, "end_line": 5, "end_column": 27, "content": "t.detach().clone()"}
    assert rows[-1] == {"path": "safe.py", "line": 5, "column": 12, "end_line": 5, "end_column": 27,
                       "code": "TEN101", "message": SAFE_MESSAGE, "url": rule_url("TEN101"),
                       "fix": {"safe": True, "applicable": True, "edits": [edit]}}
    assert run.returncode == 1


def test_sarif_output(tmp_path):
    (tmp_path / "safe.py").write_text(SAFE)
    copy_fixture("TEN207", tmp_path)
    run = tensorcopy_fix("--no-fix", "--output-format", "sarif", "safe.py", "TEN207.py", cwd=tmp_path)
    sarif = json.loads(run.stdout)
    assert sarif["version"] == "2.1.0"
    results = sarif["runs"][0]["results"]
    expected = _expected_rows()
    assert [r["ruleId"] for r in results] == [row["code"] for row in expected]
    regions = [r["locations"][0]["physicalLocation"]["region"] for r in results]
    assert [(g["startLine"], g["startColumn"]) for g in regions] == [(row["line"], row["column"]) for row in expected]
    uris = [r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in results]
    assert uris == [row["path"] for row in expected]
    assert {rule["id"] for rule in sarif["runs"][0]["tool"]["driver"]["rules"]} == set(RULES_BY_CODE)
    assert run.returncode == 1


def test_explain(tmp_path):
    run = tensorcopy_fix("--explain", "ten203", cwd=tmp_path)
    rule = RULES_BY_CODE["TEN203"]
    assert run.returncode == 0
    assert run.stdout == f"TEN203: {rule.summary}\n\n{rule.documentation()}\n"
    assert "## What it does" in run.stdout
    unknown = tensorcopy_fix("--explain", "TEN999", cwd=tmp_path)
    assert (unknown.returncode, unknown.stdout, unknown.stderr) == (2, "", "tensorcopy-fix: unknown rule TEN999\n")


def test_python_dash_m_version(tmp_path):
    run = subprocess.run([*TENSORCOPY_FIX, "--version"], cwd=tmp_path, capture_output=True, text=True, timeout=60,
                         env=checkout_env())
    assert (run.returncode, run.stdout) == (0, f"tensorcopy-fix {__version__}\n")


def test_the_subprocesses_and_this_process_run_this_checkout(tmp_path):
    where = subprocess.run([sys.executable, "-c", "import flake8_tensorcopy; print(flake8_tensorcopy.__file__)"],
                           cwd=tmp_path, capture_output=True, text=True, timeout=60, env=checkout_env())
    assert where.stdout == f"{ROOT / 'flake8_tensorcopy' / '__init__.py'}\n"
    import flake8_tensorcopy.cli

    assert Path(flake8_tensorcopy.cli.__file__) == ROOT / "flake8_tensorcopy" / "cli.py"


# --- configuration --------------------------------------------------------------------------


def test_config_select_and_the_cli_overriding_it(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "demo"\n\n[tool.tensorcopy]\nselect = ["TEN104"]\n')
    copy_fixture("TEN101", tmp_path)
    from_config = tensorcopy_fix("--no-fix", "TEN101.py", cwd=tmp_path)
    assert from_config.stdout.splitlines() == report_lines(
        "TEN101.py", fixture_text("TEN101.py"), (RULES_BY_CODE["TEN104"],)
    )
    assert _codes(from_config) == {"TEN104"}
    overridden = tensorcopy_fix("--no-fix", "--select", "TEN101", "TEN101.py", cwd=tmp_path)
    assert _codes(overridden) == {"TEN101"}


def test_config_unsafe_fixes_and_exclude(tmp_path):
    (tmp_path / "pyproject.toml").write_text(
        '[tool.tensorcopy]\nunsafe-fixes = true\nexclude = [\n    "skip_me.py",\n]\n'
    )
    copy_fixture("TEN207", tmp_path)
    (tmp_path / "skip_me.py").write_text(SAFE)
    run = tensorcopy_fix(".", cwd=tmp_path)
    assert (tmp_path / "TEN207.py").read_text(encoding="utf-8") == fixture_text("TEN207.fixed.py")
    assert (tmp_path / "skip_me.py").read_text() == SAFE
    assert run.returncode == 0
    assert "unsafe" not in run.stderr


# The same CLI with ``tomllib`` hidden: it reads with tomli, as on Python 3.9/3.10.
WITHOUT_TOMLLIB = [sys.executable, "-c", "import sys; sys.modules['tomllib'] = None; "
                   "from flake8_tensorcopy.cli import main; sys.exit(main())"]

COMMENTED_CONFIG = """\
[project]
name = "demo"  # the package

[tool.tensorcopy]  # our table
select = ["TEN1"]  # copies only
ignore = [
    "TEN101",  # noisy here
]
exclude = ["skip_me.py"]  # generated

[tool.other]
select = ["E501"]
"""


@pytest.mark.parametrize("command", [TENSORCOPY_FIX, WITHOUT_TOMLLIB], ids=["tomllib", "without-tomllib"])
def test_config_with_comments_and_other_tables(tmp_path, command):
    (tmp_path / "pyproject.toml").write_text(COMMENTED_CONFIG)
    copy_fixture("TEN101", tmp_path)
    (tmp_path / "skip_me.py").write_text(SAFE)
    run = subprocess.run([*command, "--no-fix", "."], cwd=tmp_path, capture_output=True, text=True, timeout=60,
                         env=checkout_env())
    assert run.stdout.splitlines() == report_lines(
        "TEN101.py", fixture_text("TEN101.py"), (RULES_BY_CODE["TEN104"],)
    ), run.stderr
    assert run.stderr == "1 finding in 1 file; 1 fixable, 0 with --unsafe-fixes\n"


def test_config_errors_exit_2(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.tensorcopy]\nselect = ["NOPE1"]\n')
    (tmp_path / "safe.py").write_text(SAFE)
    run = tensorcopy_fix("safe.py", cwd=tmp_path)
    assert (run.returncode, run.stderr) == (
        2, "tensorcopy-fix: pyproject.toml: [tool.tensorcopy] select: unknown code or prefix: NOPE1\n")
    assert (tmp_path / "safe.py").read_text() == SAFE


# --- safety of the rewrite ------------------------------------------------------------------


def test_files_that_do_not_parse_or_decode_are_left_alone_and_the_others_are_fixed(tmp_path):
    broken = b"import torch\n\ndef f(t: torch.Tensor):\n    return torch.tensor(t\n"
    (tmp_path / "bad.py").write_bytes(broken)
    undecodable = SAFE.encode() + b"# \xff\xfe not UTF-8\n"
    (tmp_path / "binary.py").write_bytes(undecodable)
    (tmp_path / "good.py").write_text(SAFE)
    run = tensorcopy_fix("bad.py", "binary.py", "good.py", cwd=tmp_path)
    assert run.returncode == 2
    errors = run.stderr.splitlines()
    assert errors[0].startswith("bad.py: cannot parse")
    assert errors[1].startswith("binary.py: cannot read")
    assert errors[2] == "fixed 1 finding in 1 file; 0 left; 2 files with errors"
    assert (tmp_path / "bad.py").read_bytes() == broken
    assert (tmp_path / "binary.py").read_bytes() == undecodable
    assert (tmp_path / "good.py").read_text() == SAFE_FIXED
    assert sorted(os.listdir(tmp_path)) == ["bad.py", "binary.py", "good.py"]


def test_rewrite_keeps_line_endings_encoding_bom_and_mode(tmp_path):
    crlf_text = fixture_text("TEN104.py").replace("\n", "\r\n")
    (tmp_path / "crlf.py").write_bytes(crlf_text.encode())
    latin = "# -*- coding: latin-1 -*-\n# Müller's café\n" + SAFE.replace("(t)\n", "(t)  # naïve\n")
    (tmp_path / "latin.py").write_bytes(latin.encode("latin-1"))
    (tmp_path / "bom.py").write_bytes(b"\xef\xbb\xbf" + SAFE.encode())
    (tmp_path / "script.py").write_text("#!/usr/bin/env python\n" + SAFE)
    (tmp_path / "script.py").chmod(0o755)
    (tmp_path / "private.py").write_text(SAFE)
    (tmp_path / "private.py").chmod(0o600)
    run = tensorcopy_fix("-q", ".", cwd=tmp_path)
    assert run.returncode == 0, run.stderr

    crlf = (tmp_path / "crlf.py").read_bytes()
    assert crlf == fixture_text("TEN104.fixed.py").replace("\n", "\r\n").encode()
    assert crlf.count(b"\n") == crlf.count(b"\r\n") > 100

    raw = (tmp_path / "latin.py").read_bytes()
    assert raw == fix_source(latin).source.encode("latin-1")
    assert "t_copied = t.detach().clone()  # naïve" in raw.decode("latin-1")
    assert b"M\xfcller's caf\xe9" in raw

    assert (tmp_path / "bom.py").read_bytes() == b"\xef\xbb\xbf" + SAFE_FIXED.encode()

    assert stat.S_IMODE((tmp_path / "script.py").stat().st_mode) == 0o755
    assert (tmp_path / "script.py").read_text() == "#!/usr/bin/env python\n" + SAFE_FIXED
    assert stat.S_IMODE((tmp_path / "private.py").stat().st_mode) == 0o600

    assert sorted(os.listdir(tmp_path)) == ["bom.py", "crlf.py", "latin.py", "private.py", "script.py"]
