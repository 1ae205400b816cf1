"""Shared paths and the fixture marker format.

A flagged fixture line ends with a marker that pins, for each finding on it, the code, the
column as flake8 prints it (1-based) and a fragment of the message::

    backup = w.detach()  # expect: TEN203@14 "'backup' shares memory with 'w' (detach() does not copy)"
    raw = p.data  # expect: TEN203@11 "'raw' shares memory with 'p'", TEN301@11 "p.data bypasses"

The old form ``# expect: TEN203, TEN301`` (codes only) still parses, so that new fixture lines
can be written before their pins; ``test_fixtures`` requires the pins, and
``scripts/pin_fixture_markers.py`` writes them from the linter's output.
"""

import functools
import io
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import List, Optional

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
# In-process tests import this checkout too, not an installed copy that may be older.
sys.path.insert(0, str(ROOT))
# ``tensorcopy-fix`` as this checkout's code: an installed console script may be an older copy
TENSORCOPY_FIX = [sys.executable, "-m", "flake8_tensorcopy"]
MARKER = re.compile(r"#\s*expect:\s*")
ITEM = re.compile(r'(?P<code>TEN\d{3})(?:@(?P<column>\d+))?(?:\s*"(?P<fragment>[^"]*)")?\s*(?P<comma>,\s*)?')


@dataclass(frozen=True)
class Expectation:
    """One finding a fixture line is marked with."""

    line: int
    code: str
    column: Optional[int] = None  # 1-based, as flake8 prints it; None in an old-style marker
    fragment: Optional[str] = None  # a part of the message; None in an old-style marker

    @property
    def pinned(self) -> bool:
        return self.column is not None and self.fragment is not None


def checkout_env() -> dict:
    """The environment for a subprocess that must import this checkout, not an installed copy."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), *filter(None, [env.get("PYTHONPATH")])])
    return env


def run_tensorcopy_fix(args, cwd, stdin=None, text=True) -> subprocess.CompletedProcess:
    """``tensorcopy-fix args`` run in this process as the shell would run it (in ``cwd``, with
    ``stdin`` on standard input, exit status and both streams captured, as bytes unless ``text``),
    which saves a Python start and LibCST's import per call. What a separate process is needed
    for (signals, workers, closed pipes, another interpreter's modules) keeps ``subprocess``."""
    from flake8_tensorcopy import cli
    from flake8_tensorcopy.knowledge.conventions import configure as configure_conventions

    if isinstance(stdin, str):
        stdin = stdin.encode()
    stdout, stderr = io.BytesIO(), io.BytesIO()
    streams = (io.TextIOWrapper(io.BytesIO(stdin or b""), encoding="utf-8"),
               io.TextIOWrapper(stdout, encoding="utf-8", write_through=True),
               io.TextIOWrapper(stderr, encoding="utf-8", errors="backslashreplace", write_through=True))
    saved = sys.stdin, sys.stdout, sys.stderr
    previous = os.getcwd()
    try:
        os.chdir(cwd)
        sys.stdin, sys.stdout, sys.stderr = streams
        try:
            returncode = cli.main([str(arg) for arg in args])
        except SystemExit as exit:  # argparse's usage errors and --version
            returncode = exit.code if isinstance(exit.code, int) else (0 if exit.code is None else 1)
        sys.stdout.flush()
        sys.stderr.flush()
    finally:
        sys.stdin, sys.stdout, sys.stderr = saved
        os.chdir(previous)
        configure_conventions({})  # a project's [tool.tensorcopy] conventions must not reach the next test
    out, err = stdout.getvalue(), stderr.getvalue()
    if text:  # what subprocess.run(text=True) gives: decoded, line ends made "\n"
        out, err = (stream.decode().replace("\r\n", "\n").replace("\r", "\n") for stream in (out, err))
    return subprocess.CompletedProcess(["tensorcopy-fix", *map(str, args)], returncode, out, err)


def rule_fixtures():
    """fixtures/TENnnn.py files (not the .fixed.py goldens)."""
    return sorted(path for path in FIXTURES.glob("TEN[0-9][0-9][0-9].py"))


# The fixtures whose rules read beyond the bodies they report in (summaries, stores on self,
# callers) and hold many shapes, one per family (aliases, snapshots, autograd): the default run
# checks the whole-fixture properties on these, ``-m slow`` on every fixture (TEN203's and
# TEN206's, the largest, included): the default suite stays under 3 minutes on 2 cores.
DEFAULT_RUN_FIXTURES = frozenset({"TEN205", "TEN208", "TEN307"})
# The engine's properties (quiet bodies left out of the parse, one chunk parsed again after an
# edit) hold or fail for LibCST's and the gate's reasons, not a rule's: by default they run on the
# smallest of these, every fixture under ``-m slow``.
ENGINE_PROPERTY_FIXTURES = frozenset({"TEN208"})


def by_weight(values, code=lambda value: value, default_run=DEFAULT_RUN_FIXTURES):
    """``values`` as pytest params named by their fixture's ``code``, those outside
    ``default_run`` marked slow."""
    params = []
    for value in values:
        name = code(value)
        marks = () if name in default_run else pytest.mark.slow
        params.append(pytest.param(*(value if type(value) is tuple else (value,)), id=name, marks=marks))
    return params


# The tests that ask ``fixture_findings`` for the fixture their parameter names: under
# pytest-xdist they are scheduled by fixture (``pytest_xdist_make_scheduler`` below), so that one
# worker lints each fixture once, instead of each worker linting it again.
FINDINGS_SHARING_TESTS = frozenset({
    "test_fixtures.py::test_findings_match_markers",
    "test_fixes.py::test_every_fix_has_its_rule_safety",
    "test_messages.py::test_every_suggestion_is_the_code_the_fix_writes",
    "test_gate.py::test_every_finding_of_a_rules_fixture_lies_where_the_gate_is_open",
    "test_engine.py::test_leaving_quiet_bodies_out_of_the_parse_changes_no_finding",
    "test_engine.py::test_leaving_quiet_bodies_out_of_the_parse_changes_no_finding_for_any_rule_alone",
    "test_incremental.py::test_an_edit_in_a_function_body_parses_one_chunk_again_and_finds_what_a_whole_lint_finds",
})
_SHARING_NODEID = re.compile(r"(?:.*/)?(?P<test>test_\w+\.py::\w+)\[(?P<code>TEN\d{3})\]")


def fixture_scope(nodeid: str) -> str:
    """The unit of work a test is scheduled in: ``fixture-TENnnn`` for the tests of
    ``FINDINGS_SHARING_TESTS`` (all of one fixture's go to one worker), else the test alone."""
    match = _SHARING_NODEID.fullmatch(nodeid)
    if match and match.group("test") in FINDINGS_SHARING_TESTS:
        return "fixture-" + match.group("code")
    return nodeid


def pytest_xdist_make_scheduler(config, log):
    """``-n`` with the default ``--dist load``: pytest-xdist's scheduling by units of work
    (``--dist loadscope``'s) with each test a unit of its own, except that the tests sharing a
    fixture's findings are one unit per fixture (``fixture_scope``). (pytest-xdist's own
    ``--dist loadgroup`` does not group on pytest 9: it renames ``item._nodeid``, which pytest
    no longer reads.) Any other ``--dist`` is pytest-xdist's."""
    if config.getvalue("dist") != "load":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class ByFixture(LoadScopeScheduling):
        def _split_scope(self, nodeid):
            return fixture_scope(nodeid)

    return ByFixture(config, log)


def per_fixture(values, code=lambda value: value, slow=()):
    """``values`` as pytest params named by their fixture's ``code``; those whose code is in
    ``slow`` marked slow."""
    params = []
    for value in values:
        name = code(value)
        params.append(pytest.param(*(value if type(value) is tuple else (value,)), id=name,
                                   marks=pytest.mark.slow if name in slow else ()))
    return params


@functools.lru_cache(maxsize=None)
def fixture_findings(path: Path):
    """The engine's findings for a fixture file, linted once per session (several tests ask)."""
    from flake8_tensorcopy.engine import lint_source

    return tuple(lint_source(path.read_text(encoding="utf-8")))


def marker_items(line: str):
    """The ``ITEM`` matches of a line's ``# expect:`` marker, in order (none without a marker)."""
    start = MARKER.search(line)
    if start is None:
        return []
    items = []
    position = start.end()
    while True:
        item = ITEM.match(line, position)
        if item is None:
            return items
        items.append(item)
        position = item.end()
        if not item.group("comma"):
            return items


def expectations(text: str) -> List[Expectation]:
    """Every finding the markers of a fixture text announce, in line order."""
    found = []
    for number, line in enumerate(text.splitlines(), start=1):
        for item in marker_items(line):
            column = item.group("column")
            found.append(Expectation(number, item.group("code"), column and int(column), item.group("fragment")))
    return found


def expected_findings(text: str):
    """The (line, code) pairs a fixture marks as findings."""
    return {(expected.line, expected.code) for expected in expectations(text)}


def mismatches(found, expected: List[Expectation]) -> List[str]:
    """How ``found`` ((line, code, 1-based column, message) tuples) differs from the markers:
    a finding on no marked (line, code) and a marked one not found, both ways; and on every
    pinned (line, code), the columns exactly and each pinned fragment in its message."""
    problems = []
    found_pairs = {(line, code) for line, code, _column, _message in found}
    expected_pairs = {(mark.line, mark.code) for mark in expected}
    problems += [f"line {line}: {code} reported but not marked" for line, code in sorted(found_pairs - expected_pairs)]
    problems += [f"line {line}: {code} marked but not reported" for line, code in sorted(expected_pairs - found_pairs)]
    pinned_pairs = {(mark.line, mark.code) for mark in expected if mark.pinned}
    messages = {}
    for line, code, column, message in found:
        if (line, code) in pinned_pairs:
            messages.setdefault((line, code, column), []).append(message)
    pinned = sorted((mark.line, mark.code, mark.column) for mark in expected if mark.pinned)
    for line, code, column in sorted(set(messages) - set(pinned)):
        problems.append(f"line {line}: {code} reported at column {column}, not pinned there")
    for mark in expected:
        if not mark.pinned:
            continue
        here = messages.get((mark.line, mark.code, mark.column))
        if here is None:
            problems.append(f"line {mark.line}: {mark.code} pinned at column {mark.column}, not reported there")
        elif not any(mark.fragment in message for message in here):
            problems.append(f"line {mark.line}: {mark.code} message {here[0]!r} lacks {mark.fragment!r}")
    return problems


@pytest.fixture
def lint():
    """Lint a snippet and return its (line, code) pairs."""
    from flake8_tensorcopy.engine import lint_source

    def run(source: str):
        return sorted((finding.line, finding.code) for finding in lint_source(source))

    return run


def deeply_nested(shape: str, depth: int = 325) -> str:
    """A valid module with a TEN101 finding (line 5) and, on the finding's line or in its
    function's header, an expression ``depth`` levels deep in LibCST's tree."""
    header = "import torch\n\n\ndef f(t: torch.Tensor{default}):\n"
    if shape == "strings":  # adjacent literals: one ast Constant, ``depth`` LibCST nodes
        return header.format(default="") + "    return torch.tensor(t), " + " ".join(['"a"'] * depth) + "\n"
    if shape == "attributes":
        return header.format(default="") + "    return torch.tensor(t), t" + ".real" * depth + "\n"
    if shape == "methods":
        return header.format(default="") + "    return torch.tensor(t), t" + ".abs()" * depth + "\n"
    if shape == "unary_default":
        return header.format(default=", d=" + "-" * depth + "1") + "    return torch.tensor(t)\n"
    raise ValueError(shape)
