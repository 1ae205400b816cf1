"""The engine and the fixer never raise on any input, and what does not change a program's
meaning does not change its findings: generated programs, mangled fixtures, extreme lines.

Allowed: ``SourceError`` for input that cannot be analysed (reported, file untouched), but not
its ``InternalError`` kind (a bug of ours caught at the engine's boundary). Anything else
escaping is a crash. The default suite runs bounded, targeted cases; ``pytest -m slow`` adds
every mutation of every fixture.
"""

import random
import re
from collections import Counter
from contextlib import contextmanager
from dataclasses import replace
from unittest import mock

import hypothesmith
import pytest
from hypothesis import HealthCheck, given, settings

from conftest import FIXTURES, by_weight, expectations, mismatches, rule_fixtures, run_tensorcopy_fix
from flake8_tensorcopy import engine
from flake8_tensorcopy.engine import InternalError, SourceError, lint_source
from flake8_tensorcopy.fixer import fix_source

FIXTURE_TEXTS = {path.stem: path.read_text(encoding="utf-8") for path in rule_fixtures()}


def _compiles(source: str) -> bool:
    try:
        compile(source, "<source>", "exec")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


def survives(source: str) -> None:
    """Lint and fix; only a parse error may come out, and a fix is stable and parses."""
    try:
        lint_source(source)
        fixed = fix_source(source, unsafe=True).source
    except InternalError:
        raise
    except SourceError:
        return
    assert fix_source(fixed, unsafe=True).source == fixed
    if _compiles(source):
        assert _compiles(fixed)


def found(source: str):
    """Findings as ``conftest.mismatches`` compares them (1-based columns)."""
    return [(finding.line, finding.code, finding.col + 1, finding.message) for finding in lint_source(source)]


# --- generated programs ----------------------------------------------------------------------

# Without torch no rule can know a value is a tensor and the scan stops before LibCST; this
# prelude gets every generated program past that gate, and holds a finding of its own.
PRELUDE = (
    "import torch\n"
    "weights = torch.ones(3, requires_grad=True)\n"
    "backup = weights.detach()\n"
    "weights.add_(1)\n"
)
PRELUDE_FINDING = (3, "TEN203")  # backup shares memory with weights, written on line 4
PRELUDE_NAMES = re.compile(r"\b(torch|weights|backup)\b")


@contextmanager
def counting_stages():
    """Count the sources that reach the LibCST parse and the model's solve (the engine's hooks)."""
    reached = Counter()
    real_parse, real_build = engine.parse, engine.build_model

    def parse(source):
        reached["parse"] += 1
        return real_parse(source)

    def build_model(tree, default_dtype, default_device):
        reached["flow pass"] += 1
        return real_build(tree, default_dtype, default_device)

    with mock.patch.object(engine, "parse", parse), mock.patch.object(engine, "build_model", build_model):
        yield reached


def check_generated_programs(strategy, examples: int) -> None:
    """Each program after PRELUDE survives; most reach the flow pass, and those that do (and
    leave the prelude's names alone) still report the prelude's finding."""
    programs = Counter()
    with counting_stages() as reached:

        @settings(max_examples=examples, deadline=None, suppress_health_check=list(HealthCheck))
        @given(strategy)
        def check(program):
            source = PRELUDE + program
            before = Counter(reached)
            programs["generated"] += 1
            try:
                findings = {(finding.line, finding.code) for finding in lint_source(source)}
            except SourceError:
                findings = None  # does not parse, or too deep to analyse
            programs["parsed"] += reached["parse"] > before["parse"]
            if findings is not None and reached["flow pass"] > before["flow pass"]:
                programs["analysed"] += 1
                assert PRELUDE_FINDING in findings or PRELUDE_NAMES.search(program), source
            survives(source)

        check()
    print(f"{programs['analysed']} of {programs['generated']} generated programs reached the flow pass "
          f"({programs['parsed']} the LibCST parse)")
    assert programs["analysed"] >= 0.8 * programs["generated"], programs


def test_generated_programs():
    check_generated_programs(hypothesmith.from_grammar(), examples=25)


@pytest.mark.slow  # a parallel or subprocess-heavy run: left out of the default suite (< 3 min)
def test_generated_syntax_trees():
    check_generated_programs(hypothesmith.from_node(), examples=15)  # each costs ~0.2 s to generate


# --- mangled fixtures ------------------------------------------------------------------------


def _respelled(text: str) -> str:
    """The same program spelled otherwise: CRLF line ends, tabs for four spaces, non-ASCII
    comments."""
    return text.replace("    ", "\t").replace("# ", "# é ").replace("\n", "\r\n")


@pytest.mark.parametrize("name", by_weight(FIXTURE_TEXTS, default_run={"TEN208"}))
def test_respelled_fixture_gives_the_same_findings_and_fix(name):
    """Columns move with the tabs; the fix of the CRLF spelling is the golden file in CRLF
    (a fix may indent what it writes with spaces, so tabs would not carry over). What the
    respelling tests is the engine's, not a rule's: the default run takes one fixture whose
    every finding has a fix (TEN208's), ``-m slow`` every fixture."""
    text = FIXTURE_TEXTS[name]
    lines = text.splitlines()
    moved = [
        replace(mark, column=len(_respelled(lines[mark.line - 1][: mark.column - 1])) + 1) if mark.pinned else mark
        for mark in expectations(text)
    ]
    source = _respelled(text)
    assert mismatches(found(source), moved) == []
    golden = FIXTURES / f"{name}.fixed.py"
    if golden.exists():
        crlf = fix_source(text.replace("\n", "\r\n"), unsafe=True).source
        assert crlf == golden.read_text(encoding="utf-8").replace("\n", "\r\n")


def _broken(text: str, seed: int):
    """Damage that usually stops the parse: a cut mid-file, a dropped line, a bad indent, a BOM
    character inside the text (decoding should have removed it)."""
    rng = random.Random(seed)
    lines = text.splitlines(keepends=True)
    index = rng.randrange(len(lines))
    yield text[: rng.randrange(len(text))]
    yield "".join(lines[:index] + lines[index + 1:])
    yield "".join(lines[:index] + [" " * rng.randrange(1, 8) + lines[index]] + lines[index + 1:])
    yield "\ufeff" + text


@pytest.mark.parametrize("index, name", by_weight(list(enumerate(FIXTURE_TEXTS)), code=lambda pair: pair[1]))
def test_broken_fixture_is_a_source_error_or_linted(index, name):
    """One kind of damage per fixture, rotating, so that each kind meets several rules."""
    damaged = list(_broken(FIXTURE_TEXTS[name], seed=index))
    survives(damaged[index % len(damaged)])


def test_a_bom_inside_the_text_is_a_source_error():
    with pytest.raises(SourceError, match="U\\+FEFF"):
        lint_source("\ufeff" + FIXTURE_TEXTS["TEN101"])


# --- extreme lines ---------------------------------------------------------------------------

SIGNATURE = "import torch\n\n\ndef f(t: torch.Tensor):\n"


def test_deeply_nested_expression_is_not_a_crash():
    source = "import torch\nx = " + "-" * 3000 + "torch.tensor(t)\n"
    survives(source)


DEEP = "too deeply nested (Python's recursion limit reached in LibCST or the analysis)"


def deep_beside_a_finding(head: str, tail: str, depth: int) -> str:
    """A TEN101 finding with a safe fix (line 6), and a module-level statement ``depth`` levels
    deep in LibCST's tree that linting never walks deeply, but rewriting the module does."""
    made = "import torch\n\n\ndef f():\n    t = torch.ones(3)\n    return torch.tensor(t)\n\n\n"
    return made + "chain = " + head + tail * depth + "\n"


@pytest.mark.parametrize("head, tail, depth", [("t", ".real", 325), ("t", "[0]", 325), ("t", ".abs()", 250),
                                               ('"a"', ' "a"', 700)])
def test_a_source_too_deep_to_rewrite_is_one_source_error(head, tail, depth):
    source = deep_beside_a_finding(head, tail, depth)
    assert [(f.line, f.code) for f in lint_source(source)] == [(6, "TEN101")]
    with pytest.raises(SourceError) as raised:
        fix_source(source)
    assert (type(raised.value), str(raised.value)) == (SourceError, DEEP)


def test_the_cli_reports_a_source_too_deep_to_rewrite_as_one_error_and_leaves_it(tmp_path):
    source = deep_beside_a_finding("t", ".real", 325)
    (tmp_path / "deep.py").write_text(source)
    run = run_tensorcopy_fix(["deep.py"], tmp_path)
    assert run.stderr.splitlines() == [f"deep.py: cannot parse: {DEEP}",
                                       "fixed 0 findings in 0 files; 0 left; 1 file with errors"]
    assert (run.returncode, run.stdout) == (2, "")
    assert (tmp_path / "deep.py").read_text() == source


def test_finding_inside_fifty_parentheses():
    made = "import torch\n\n\ndef f():\n    t = torch.ones(3)\n"  # made by torch: the fix is safe
    source = made + "    return " + "(" * 50 + "torch.tensor(t)" + ")" * 50 + "\n"
    assert [(f.line, f.col, f.code) for f in lint_source(source)] == [(6, 61, "TEN101")]
    assert fix_source(source).source == source.replace("torch.tensor(t)", "t.detach().clone()")


def test_three_hundred_findings_on_one_line():
    elements = ["t.clone().detach()"] * 300
    source = SIGNATURE + "    t.requires_grad_()\n    return [" + ", ".join(elements) + "]\n"
    columns = [f.col for f in lint_source(source) if (f.line, f.code) == (6, "TEN104")]
    assert columns == [12 + 20 * i for i in range(300)]
    assert fix_source(source).source == source.replace("t.clone().detach()", "t.detach().clone()")


def test_non_ascii_names_count_columns_in_characters():
    source = "import torch\n\n\ndef f():\n    wärme = torch.ones(3)\n    größe = torch.tensor(wärme)\n    return größe\n"
    assert [(f.line, f.col, f.end_col, f.code) for f in lint_source(source)] == [(6, 12, 31, "TEN101")]
    assert fix_source(source).source == source.replace("torch.tensor(wärme)", "wärme.detach().clone()")


# --- slow: every mutation of every fixture ---------------------------------------------------


def _every_mutation(text: str, seed: int):
    yield from _broken(text, seed)
    yield text.replace("\n", "\r\n")
    yield text.replace("    ", "\t")
    yield _respelled(text)
    yield text + "\nx = " + "(" * 50 + "torch.tensor(t)" + ")" * 50 + "\n"  # deep nesting
    yield text + "\ny = [" + ", ".join(["t.clone().detach()"] * 2000) + "]\n"  # a very long line
    yield text.replace("torch", "torch\u00e9")  # non-ASCII identifiers


@pytest.mark.slow
@pytest.mark.parametrize("index, name", list(enumerate(FIXTURE_TEXTS)), ids=list(FIXTURE_TEXTS))
def test_every_mutation_of_every_fixture_survives(index, name):
    for source in _every_mutation(FIXTURE_TEXTS[name], seed=index):
        survives(source)
