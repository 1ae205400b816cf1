"""The findings cache of the real script: where it lives, that it serves unchanged files,
that an edit, another configuration or fix mode is never answered from a stale entry, and
that parallel workers leave only whole entries."""

import json
import os

import pytest

from flake8_tensorcopy import cli
from flake8_tensorcopy.cache import Cache
from test_cli import SAFE, SAFE_FIXED, copy_fixture, tensorcopy_fix
from test_output import UNFIXABLE_FIXED

CACHE = ".tensorcopy_cache"


def entries(directory):
    return sorted(path for path in directory.rglob("*.json"))


def test_cache_is_created_on_first_use_and_ignored_by_git(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.tensorcopy]\n")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "safe.py").write_text(SAFE)
    run = tensorcopy_fix("--no-fix", "safe.py", cwd=tmp_path / "pkg", cache=True)
    assert run.returncode == 1
    cache = tmp_path / CACHE  # beside pyproject.toml, not in the working directory
    assert (cache / ".gitignore").read_text().splitlines()[-1] == "*"
    assert (cache / "CACHEDIR.TAG").read_text().startswith("Signature: 8a477f597d28d172789f06886806bc55")
    assert len(entries(cache)) == 1
    assert not (tmp_path / "pkg" / CACHE).exists()


def test_no_cache_writes_nothing(tmp_path):
    (tmp_path / "safe.py").write_text(SAFE)
    tensorcopy_fix("--no-fix", "safe.py", cwd=tmp_path)  # the helper passes --no-cache
    assert sorted(os.listdir(tmp_path)) == ["safe.py"]


def test_unchanged_file_is_answered_from_the_cache(tmp_path, monkeypatch):
    (tmp_path / "grads.py").write_text(UNFIXABLE_FIXED)
    first = tensorcopy_fix("--no-fix", "grads.py", cwd=tmp_path, cache=True)
    (entry,) = entries(tmp_path / CACHE)
    assert [row["code"] for row in json.loads(entry.read_text())["rows"]] == ["TEN303"]

    def no_linting(*args, **kwargs):
        raise AssertionError("linted although the cache holds the findings")

    monkeypatch.setattr(cli, "lint_source", no_linting)
    monkeypatch.setattr(cli, "fix_source", no_linting)
    second = tensorcopy_fix("--no-fix", "grads.py", cwd=tmp_path, cache=True)
    assert (second.stdout, second.returncode) == (first.stdout, 1) and "TEN303" in first.stdout
    fix_mode = tensorcopy_fix("grads.py", cwd=tmp_path, cache=True)  # nothing to fix: served too
    assert (fix_mode.stdout, fix_mode.returncode) == (first.stdout, 1)


def _other_entry(entry, other):
    return other


def _emptied(entry, other):  # the checksum kept, every finding gone
    return json.dumps(dict(json.loads(entry), rows=[]))


def _retyped(entry, other):
    document = json.loads(entry)
    document["rows"][0]["line"] = str(document["rows"][0]["line"])
    return json.dumps(document)


def _reworded(entry, other):
    document = json.loads(entry)
    document["rows"][0]["message"] = "from the cache"
    return json.dumps(document)


CORRUPTIONS = {
    "empty list": lambda entry, other: "[]",
    "empty rows under the right checksum": _emptied,
    "junk rows": lambda entry, other: '[1, null, "x"]',
    "junk rows in an entry": lambda entry, other: json.dumps(dict(json.loads(entry), rows=[1, None, "x"])),
    "a line number as text": _retyped,
    "a checksum that is not text": lambda entry, other: json.dumps(dict(json.loads(entry), checksum=5)),
    "truncated JSON": lambda entry, other: entry[: len(entry) // 2],
    "wrong checksum": _reworded,
    "another text's whole entry": _other_entry,
    "not UTF-8": lambda entry, other: b"\xff\xfe\x00".decode("latin-1"),
    "nested too deep": lambda entry, other: "[" * 100_000,
}


@pytest.mark.parametrize("corrupt", CORRUPTIONS.values(), ids=CORRUPTIONS)
def test_a_damaged_entry_is_a_miss_and_is_replaced(tmp_path, corrupt):
    """The same findings and fixes as without a cache, whatever the entry holds; the run
    writes the fresh entry over the bad one."""
    (tmp_path / "safe.py").write_text(SAFE)
    (tmp_path / "grads.py").write_text(UNFIXABLE_FIXED)
    uncached = tensorcopy_fix("--no-fix", "safe.py", cwd=tmp_path)
    tensorcopy_fix("--no-fix", "grads.py", cwd=tmp_path, cache=True)
    (other,) = entries(tmp_path / CACHE)
    tensorcopy_fix("--no-fix", "safe.py", cwd=tmp_path, cache=True)
    (entry,) = set(entries(tmp_path / CACHE)) - {other}
    fresh = entry.read_text()

    entry.write_text(corrupt(fresh, other.read_text()), encoding="latin-1")
    report = tensorcopy_fix("--no-fix", "safe.py", cwd=tmp_path, cache=True)
    assert (report.stdout, report.stderr, report.returncode) == (uncached.stdout, uncached.stderr, 1)
    assert entry.read_text() == fresh

    entry.write_text(corrupt(fresh, other.read_text()), encoding="latin-1")
    fixed = tensorcopy_fix("safe.py", cwd=tmp_path, cache=True)
    assert (tmp_path / "safe.py").read_text() == SAFE_FIXED
    assert (fixed.stdout, fixed.stderr, fixed.returncode) == ("", "fixed 1 finding in 1 file; 0 left\n", 0)


@pytest.mark.parametrize("row", [
    {"line": 0}, {"line": True}, {"column": 2.0}, {"end_line": 9}, {"end_line": 4}, {"code": None},
    {"message": ["x"]}, {"fix": []}, {"fix": {"safe": True, "applicable": 1, "edits": []}},
    {"fix": {"safe": True, "applicable": True, "edits": [{"line": 5}]}}, {"extra": 1},
], ids=str)
def test_rows_of_the_wrong_shape_are_a_miss_even_under_their_checksum(tmp_path, row):
    good = {"code": "TEN101", "line": 5, "column": 12, "end_line": 5, "end_column": 27, "message": "m",
            "fix": {"safe": True, "applicable": True,
                    "edits": [{"line": 5, "column": 12, "end_line": 5, "end_column": 27, "content": "x"}]}}
    cache = Cache(tmp_path, ["settings"])
    cache.put(SAFE, [good])
    assert cache.get(SAFE) == [good]
    cache.put(SAFE, [good, dict(good, **row)])  # a line 9 or one ending before it starts: not of this text
    assert cache.get(SAFE) is None


def test_edits_and_other_settings_miss(tmp_path):
    (tmp_path / "safe.py").write_text(SAFE_FIXED)
    clean = tensorcopy_fix("--no-fix", "safe.py", cwd=tmp_path, cache=True)
    assert (clean.returncode, clean.stdout) == (0, "")
    (tmp_path / "safe.py").write_text(SAFE)
    edited = tensorcopy_fix("--no-fix", "safe.py", cwd=tmp_path, cache=True)
    assert edited.returncode == 1 and edited.stdout.startswith("safe.py:5:12: TEN101")
    other = tensorcopy_fix("--no-fix", "--select", "TEN3", "safe.py", cwd=tmp_path, cache=True)
    assert (other.returncode, other.stdout) == (0, "")
    assert len(entries(tmp_path / CACHE)) == 3


def test_fix_mode_fixes_a_file_the_cache_has_seen(tmp_path):
    (tmp_path / "safe.py").write_text(SAFE)
    tensorcopy_fix("--no-fix", "safe.py", cwd=tmp_path, cache=True)
    run = tensorcopy_fix("safe.py", cwd=tmp_path, cache=True)
    assert (tmp_path / "safe.py").read_text() == SAFE_FIXED
    assert run.stderr == "fixed 1 finding in 1 file; 0 left\n"
    # the fixed text's findings were stored: the next run is a hit with nothing to report
    again = tensorcopy_fix("--check", "safe.py", cwd=tmp_path, cache=True)
    assert (again.returncode, again.stdout) == (0, "")


@pytest.mark.slow  # a parallel or subprocess-heavy run: left out of the default suite (< 3 min)
def test_parallel_workers_leave_whole_entries(tmp_path):
    for number in range(12):
        copy_fixture(f"TEN20{number % 8 + 1}", tmp_path, f"m{number}.py")
        (tmp_path / f"s{number}.py").write_text(SAFE + f"# {number}\n")
    first = tensorcopy_fix("--no-fix", "-j", "2", "-q", ".", cwd=tmp_path, cache=True)
    second = tensorcopy_fix("--no-fix", "-j", "2", "-q", ".", cwd=tmp_path, cache=True)
    uncached = tensorcopy_fix("--no-fix", "-q", ".", cwd=tmp_path)
    assert first.stdout == second.stdout == uncached.stdout != ""
    cache = tmp_path / CACHE
    assert not [path for path in cache.rglob("*") if path.name.endswith(".tmp")]
    for entry in entries(cache):
        assert isinstance(json.loads(entry.read_text())["rows"], list)


def test_a_cache_that_cannot_be_created_is_a_warning(tmp_path):
    (tmp_path / "blocker").write_text("a file, not a directory")
    (tmp_path / "safe.py").write_text(SAFE)
    run = tensorcopy_fix("--no-fix", "--cache-dir", "blocker/cache", "safe.py", cwd=tmp_path, cache=True)
    assert run.returncode == 1 and run.stdout.startswith("safe.py:5:12: TEN101")
    assert run.stderr.splitlines()[0].startswith("tensorcopy-fix: warning: no cache: cannot create blocker/cache")
