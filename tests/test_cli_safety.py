"""``tensorcopy-fix`` never loses the user's work: a file it cannot handle is one line on stderr
and costs no other file, stdin always comes back, a killed run leaves no worker and no temporary,
and a write never goes through a symlink, splits a hard link or rewrites a read-only file.

Real subprocesses (this checkout's code) in ``tmp_path``, except where an exception must be
injected: there ``main()`` runs in-process with stdin/stdout replaced.
"""

import os
import re
import resource
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import TENSORCOPY_FIX, checkout_env, run_tensorcopy_fix
from flake8_tensorcopy import cli
from flake8_tensorcopy.fixer import fix_source

SAFE = "import torch\n\n\ndef copy():\n    t = torch.ones(3)\n    return torch.tensor(t)\n"
SAFE_FIXED = "import torch\n\n\ndef copy():\n    t = torch.ones(3)\n    return t.detach().clone()\n"
TWO_SAFE = SAFE + "\n\ndef again():\n    t = torch.ones(3)\n    return torch.tensor(t)\n"
# a valid default value that is too deep for the analysis (a finding in the same function)
DEEP = "import torch\n\n\ndef f(t: torch.Tensor, x=" + "-" * 600 + "1):\n    return torch.tensor(t)\n"
linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="uses /proc")


def run_fix(*args, cwd, stdin=None, command=TENSORCOPY_FIX, **options):
    """The command (without the findings cache, so listings stay exact); bytes in and out. In
    this process, but in a child where another command, worker processes (``-j 2``) or
    process ``options`` are asked for."""
    args = ["--no-cache", *map(str, args)]
    in_workers = "-j" in args and args[args.index("-j") + 1] != "1"
    if command is TENSORCOPY_FIX and not options and not in_workers:
        return run_tensorcopy_fix(args, cwd, stdin, text=False)
    return subprocess.run([*command, *args], cwd=cwd, input=stdin, capture_output=True, timeout=120,
                          env=checkout_env(), **options)


def stderr_lines(run):
    return run.stderr.decode().splitlines()


# --- a file that cannot be handled is one line and costs nothing else -------------------------


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_file_the_analysis_fails_on_is_one_short_line_and_the_others_are_fixed(tmp_path, jobs):
    (tmp_path / "a_deep.py").write_text(DEEP)
    (tmp_path / "b_good.py").write_text(SAFE)
    run = run_fix("-j", jobs, "a_deep.py", "b_good.py", cwd=tmp_path)
    error, summary = stderr_lines(run)
    assert error.startswith("a_deep.py: ") and len(error) < 250, error
    assert summary == "fixed 1 finding in 1 file; 0 left; 1 file with errors"
    assert run.returncode == 2
    assert (tmp_path / "a_deep.py").read_text() == DEEP
    assert (tmp_path / "b_good.py").read_text() == SAFE_FIXED


def run_main(args, stdin=b""):
    """``main(args)`` in this process and working directory: (exit code, stdout bytes, stderr text)."""
    run = run_tensorcopy_fix(args, os.getcwd(), stdin, text=False)
    return run.returncode, run.stdout, run.stderr.decode()


def failing_on(marker, error):
    """fix_source that raises ``error`` for a source holding ``marker`` (a bug of ours)."""
    def fix(source, *args, **kwargs):
        if marker in source:
            raise error
        return fix_source(source, *args, **kwargs)
    return fix


class HugeNode:
    """Its repr spans lines and kilobytes, as a syntax tree node's does."""

    def __repr__(self):
        return "Node(\n" + "    child,\n" * 2000 + ")"


def test_any_exception_is_its_files_error_in_one_line(tmp_path, monkeypatch):
    (tmp_path / "a_bad.py").write_text(SAFE + "# trigger\n")
    (tmp_path / "b_good.py").write_text(SAFE)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(cli, "fix_source", failing_on("# trigger", KeyError(HugeNode())))
    code, stdout, stderr = run_main(["a_bad.py", "b_good.py"])
    error = "a_bad.py: internal error (KeyError: Node( " + "child, " * 21 + "chil...), file left as it was"
    assert stderr.splitlines() == [error, "fixed 1 finding in 1 file; 0 left; 1 file with errors"]
    assert (code, stdout) == (2, b"")
    assert (tmp_path / "a_bad.py").read_text() == SAFE + "# trigger\n"
    assert (tmp_path / "b_good.py").read_text() == SAFE_FIXED


# --- stdin always comes back ------------------------------------------------------------------


@pytest.mark.parametrize(
    "source, error",
    [
        (DEEP.encode(), "-: "),
        (b"# coding: rot13\n" + SAFE.encode(), "-: cannot read: coding cookie 'rot13' is not a text encoding"),
        (b"# coding: unicode_escape\n" + SAFE.encode(),
         "-: cannot write: encoding 'unicode_escape' does not give back the same text"),
    ],
    ids=["deep-default", "rot13", "unicode-escape"],
)
def test_stdin_comes_back_unchanged_when_it_cannot_be_fixed(tmp_path, source, error):
    run = run_fix("-", cwd=tmp_path, stdin=source)
    assert (run.returncode, run.stdout) == (2, source)
    [line] = stderr_lines(run)
    assert line.startswith(error) and len(line) < 250, line


def test_closed_stdin_is_one_line_and_exit_2(tmp_path):
    run = run_fix("-", cwd=tmp_path, preexec_fn=lambda: os.close(0))
    assert (run.returncode, run.stdout, run.stderr) == (2, b"", b"-: cannot read: stdin is closed\n")


def test_memory_error_on_stdin_gives_the_input_back(monkeypatch):
    monkeypatch.setattr(cli, "fix_source", failing_on("torch", MemoryError()))
    code, stdout, stderr = run_main(["-"], stdin=SAFE.encode())
    assert (code, stdout, stderr) == (2, SAFE.encode(), "-: out of memory while analysing it\n")


def test_stdin_with_an_unreadable_configuration_gives_the_input_back(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.tensorcopy]\nselect = [\n")
    run = run_fix("-", cwd=tmp_path, stdin=SAFE.encode())
    assert (run.returncode, run.stdout) == (2, SAFE.encode())
    assert len(stderr_lines(run)) == 1 and run.stderr.startswith(b"tensorcopy-fix: ")


# --- encodings, FIFOs, symlinks, links, modes, owners -----------------------------------------


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_non_text_and_non_round_trip_codecs_are_refused_and_the_others_fixed(tmp_path, jobs):
    cookies = {"a_rot13.py": "rot13", "b_hex.py": "hex", "c_escape.py": "unicode_escape"}
    for name, codec in cookies.items():
        (tmp_path / name).write_bytes(f"# coding: {codec}\n".encode() + SAFE.encode())
    for index in range(6):
        (tmp_path / f"d_good{index}.py").write_text(SAFE)
    run = run_fix("-j", jobs, ".", cwd=tmp_path)
    assert stderr_lines(run) == [
        "a_rot13.py: cannot read: coding cookie 'rot13' is not a text encoding",
        "b_hex.py: cannot read: coding cookie 'hex' is not a text encoding",
        "c_escape.py: cannot write: encoding 'unicode_escape' does not give back the same text",
        "fixed 6 findings in 6 files; 1 left in 1 file; 3 files with errors",
    ]
    assert run.returncode == 2
    for name, codec in cookies.items():
        assert (tmp_path / name).read_bytes() == f"# coding: {codec}\n".encode() + SAFE.encode()
    for index in range(6):
        assert (tmp_path / f"d_good{index}.py").read_text() == SAFE_FIXED


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs")
def test_a_fifo_is_never_read(tmp_path):
    os.mkfifo(tmp_path / "named.py")
    os.mkfifo(tmp_path / "walked.py")
    (tmp_path / "good.py").write_text(SAFE)
    named = run_fix("named.py", "good.py", cwd=tmp_path)
    assert stderr_lines(named) == ["named.py: cannot read: not a regular file (a FIFO)",
                                   "fixed 1 finding in 1 file; 0 left; 1 file with errors"]
    assert named.returncode == 2
    (tmp_path / "good.py").write_text(SAFE)
    walked = run_fix(".", cwd=tmp_path)
    assert (walked.returncode, stderr_lines(walked)) == (0, ["fixed 1 finding in 1 file; 0 left"])
    assert (tmp_path / "good.py").read_text() == SAFE_FIXED


def test_a_read_only_file_is_not_rewritten_and_its_findings_are_left(tmp_path):
    (tmp_path / "a_locked.py").write_text(TWO_SAFE)
    (tmp_path / "a_locked.py").chmod(0o444)
    (tmp_path / "b_good.py").write_text(SAFE)
    run = run_fix("a_locked.py", "b_good.py", cwd=tmp_path)
    assert stderr_lines(run) == ["a_locked.py: cannot write: the file is read-only",
                                 "fixed 1 finding in 1 file; 2 left in 1 file; 1 file with errors"]
    assert run.stdout.decode().splitlines()[0].startswith("a_locked.py:6:12: TEN101 ")
    assert run.returncode == 2
    assert (tmp_path / "a_locked.py").read_text() == TWO_SAFE
    assert (tmp_path / "b_good.py").read_text() == SAFE_FIXED


def test_a_hard_linked_file_is_reported_not_split(tmp_path):
    (tmp_path / "a_linked.py").write_text(SAFE)
    os.link(tmp_path / "a_linked.py", tmp_path / "elsewhere.txt")
    (tmp_path / "b_good.py").write_text(SAFE)
    run = run_fix("a_linked.py", "b_good.py", cwd=tmp_path)
    assert stderr_lines(run)[0] == "a_linked.py: cannot write: the file has 2 hard links; rewriting it would split them"
    assert run.returncode == 2
    assert os.path.samefile(tmp_path / "a_linked.py", tmp_path / "elsewhere.txt")
    assert (tmp_path / "a_linked.py").read_text() == SAFE
    assert (tmp_path / "b_good.py").read_text() == SAFE_FIXED


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="only root can give a file away")
def test_fixing_as_root_keeps_owner_and_group(tmp_path):
    (tmp_path / "theirs.py").write_text(SAFE)
    os.chown(tmp_path / "theirs.py", 12345, 23456)
    run = run_fix("theirs.py", cwd=tmp_path)
    assert run.returncode == 0
    info = (tmp_path / "theirs.py").stat()
    assert (info.st_uid, info.st_gid) == (12345, 23456)
    assert (tmp_path / "theirs.py").read_text() == SAFE_FIXED


def test_a_dangling_symlink_is_one_error_among_the_files(tmp_path):
    (tmp_path / "a_dangling.py").symlink_to(tmp_path / "nowhere.py")
    (tmp_path / "b_good.py").write_text(SAFE)
    run = run_fix("a_dangling.py", "b_good.py", cwd=tmp_path)
    assert stderr_lines(run) == [
        "a_dangling.py: cannot read: [Errno 2] No such file or directory: 'a_dangling.py'",
        "fixed 1 finding in 1 file; 0 left; 1 file with errors",
    ]
    assert run.returncode == 2
    assert (tmp_path / "b_good.py").read_text() == SAFE_FIXED


@pytest.mark.skipif(not hasattr(resource, "RLIMIT_FSIZE"), reason="no file size limit")
def test_a_failed_write_counts_its_findings_as_left(tmp_path):
    """A file size limit fails the write as a full disk does."""
    (tmp_path / "big.py").write_text(TWO_SAFE)

    def tiny_files():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (16, 16))

    run = run_fix("big.py", cwd=tmp_path, preexec_fn=tiny_files)
    assert stderr_lines(run) == ["big.py: cannot write: [Errno 27] File too large",
                                 "fixed 0 findings in 0 files; 2 left in 1 file; 1 file with errors"]
    assert run.returncode == 2
    assert (tmp_path / "big.py").read_text() == TWO_SAFE
    assert os.listdir(tmp_path) == ["big.py"]


@linux_only
def test_an_unreadable_pyproject_is_one_line_and_exit_2(tmp_path):
    (tmp_path / "pyproject.toml").symlink_to("/proc/self/mem")  # a regular file whose read fails
    (tmp_path / "safe.py").write_text(SAFE)
    run = run_fix("safe.py", cwd=tmp_path)
    expected = "tensorcopy-fix: pyproject.toml: cannot read: Input/output error\n"  # config.py's form
    assert (run.returncode, run.stdout, run.stderr.decode()) == (2, b"", expected)
    assert (tmp_path / "safe.py").read_text() == SAFE


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_diff_of_a_cr_only_file_is_accepted_by_git_apply(tmp_path):
    files = {"a_cr.py": SAFE.replace("\n", "\r").encode(), "b_lf.py": SAFE.encode()}
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    run = run_fix("--diff", "-q", *files, cwd=tmp_path)
    assert run.returncode == 1
    (tmp_path / "fix.patch").write_bytes(run.stdout)
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    check = subprocess.run(["git", "apply", "--check", "fix.patch"], cwd=tmp_path, capture_output=True, text=True)
    assert check.returncode == 0, check.stderr
    subprocess.run(["git", "apply", "fix.patch"], cwd=tmp_path, check=True)
    for name, data in files.items():
        assert (tmp_path / name).read_bytes() == fix_source(data.decode()).source.encode(), name
    assert b"t.detach().clone()" in (tmp_path / "a_cr.py").read_bytes()


# --- results stream; killed runs and dead workers ---------------------------------------------


def test_each_files_findings_are_printed_before_the_next_file_is_read(tmp_path, monkeypatch):
    for name in ("a.py", "b.py"):
        (tmp_path / name).write_text(SAFE)
    monkeypatch.chdir(tmp_path)
    printed_before = {}
    read = cli.read_regular_file

    def watching(path):
        sys.stdout.flush()
        printed_before[str(path)] = sys.stdout.buffer.getvalue().decode()
        return read(path)

    monkeypatch.setattr(cli, "read_regular_file", watching)
    code, stdout, _ = run_main(["--no-fix", "a.py", "b.py"])
    assert code == 1
    assert printed_before == {"a.py": "", "b.py": stdout.decode().splitlines(keepends=True)[0]}
    assert printed_before["b.py"].startswith("a.py:6:12: TEN101 ")


def test_a_stale_temporary_of_a_killed_run_is_removed_by_the_next(tmp_path):
    ended = subprocess.Popen([sys.executable, "-c", ""])
    ended.wait()
    (tmp_path / "safe.py").write_text(SAFE)
    stale = f".safe.py.tensorcopy-{ended.pid}-k1ll3d_x.tmp"
    running = f".safe.py.tensorcopy-{os.getpid()}-st1llup.tmp"  # its writer still runs
    foreign = ".safe.py.abcd1234.tmp"  # not ours
    for name in (stale, running, foreign):
        (tmp_path / name).write_text("half a file")
    run = run_fix("safe.py", cwd=tmp_path)
    assert run.returncode == 0
    assert sorted(os.listdir(tmp_path)) == [foreign, running, "safe.py"]


# 10 safe findings per file, so that 120 files keep two workers busy for a while
MANY = "import torch\n" + "".join(f"\n\ndef copy{n}():\n    t = torch.ones(3)\n    return torch.tensor(t)\n" for n in range(10))
MANY_FIXED = MANY.replace("torch.tensor(t)", "t.detach().clone()")


def project_of_many_files(root):
    for index in range(120):
        (root / f"m{index:03d}.py").write_text(MANY)


def children(pid):
    """Pids of the live (not zombie) processes whose parent is ``pid``."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                fields = (Path("/proc") / entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid and fields[0] != "Z":
                found.append(int(entry))
    return found


def alive(pid):
    try:
        return (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def wait_until(condition, seconds=60):
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


# the same run with the kernel's parent-death signal and with the fallback that watches the parent
WATCHING_THE_PARENT = [sys.executable, "-c", "import sys; import flake8_tensorcopy.workers as workers; "
                       "workers._set_parent_death_signal = lambda signum: False; "
                       "from flake8_tensorcopy.cli import main; sys.exit(main())"]


@linux_only
@pytest.mark.parametrize("command", [TENSORCOPY_FIX, pytest.param(WATCHING_THE_PARENT, marks=pytest.mark.slow)],
                         ids=["death-signal", "watchdog"])
def test_killing_a_parallel_run_kills_its_workers_and_leaves_no_temporary(tmp_path, command):
    project_of_many_files(tmp_path)
    run = subprocess.Popen([*command, "--no-cache", "-j", "2", "-q", "."], cwd=tmp_path, env=checkout_env(),
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_until(lambda: len(children(run.pid)) >= 2 and (tmp_path / "m000.py").read_text() == MANY_FIXED)
        workers = children(run.pid)
    finally:
        run.kill()
        run.wait()
    wait_until(lambda: not any(alive(pid) for pid in workers), seconds=10)
    snapshot = {path.name: path.read_bytes() for path in tmp_path.iterdir()}
    assert not [name for name in snapshot if name.endswith(".tmp")]
    assert MANY in {data.decode() for data in snapshot.values()}  # killed before the end
    time.sleep(1)
    assert {path.name: path.read_bytes() for path in tmp_path.iterdir()} == snapshot  # nobody still writing
    again = run_fix("-j", "2", "-q", ".", cwd=tmp_path)
    assert again.returncode == 0, again.stderr  # every finding fixed: ruff's --fix passes
    assert sorted(os.listdir(tmp_path)) == [f"m{index:03d}.py" for index in range(120)]
    assert {path.read_text(encoding="utf-8") for path in tmp_path.iterdir()} == {MANY_FIXED}


@pytest.mark.slow  # a parallel or subprocess-heavy run: left out of the default suite (< 3 min)
@linux_only
def test_a_worker_killed_mid_run_costs_no_file(tmp_path):
    project_of_many_files(tmp_path)
    run = subprocess.Popen([*TENSORCOPY_FIX, "--no-cache", "-j", "2", "."], cwd=tmp_path, env=checkout_env(),
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    wait_until(lambda: len(children(run.pid)) >= 2 and (tmp_path / "m000.py").read_text() == MANY_FIXED)
    os.kill(children(run.pid)[0], signal.SIGKILL)
    stdout, stderr = run.communicate(timeout=300)
    # the dead worker's files run again; those it had already written are then reported unchanged
    fixed, files, left = re.fullmatch(r"fixed (\d+) findings in (\d+) files, (\d+) left\n", stderr.decode()).groups()
    assert 120 - 2 * 2 * 4 <= int(files) <= 120 and int(fixed) == 10 * int(files) and left == "0"
    assert (run.returncode, stdout) == (0, b"")
    assert {path.read_text(encoding="utf-8") for path in tmp_path.iterdir()} == {MANY_FIXED}
