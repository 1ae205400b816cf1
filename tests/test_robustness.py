"""The engine and the fixer never raise on any input: generated programs and mangled fixtures.

Allowed: ``SourceError`` for input that cannot be analysed (reported, file untouched), but not
its ``InternalError`` kind (a bug of ours caught at the engine's boundary). Anything else
escaping is a crash. Bounded example counts keep this in the default suite.
"""

import random

import hypothesmith
import pytest
from hypothesis import HealthCheck, given, settings

from conftest import rule_fixtures
from flake8_tensorcopy.engine import InternalError, SourceError, lint_source
from flake8_tensorcopy.fixer import fix_source

FIXTURE_TEXTS = [path.read_text(encoding="utf-8") for path in rule_fixtures()]


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


@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(hypothesmith.from_grammar())
def test_generated_programs(source):
    survives(source)


@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(hypothesmith.from_node())
def test_generated_syntax_trees(source):
    survives(source)


def _mutations(text: str, seed: int):
    rng = random.Random(seed)
    cut = rng.randrange(len(text))
    yield text[:cut]  # truncated mid-file
    yield text.replace("\n", "\r\n")  # CRLF
    yield text.replace("    ", "\t")  # tabs
    lines = text.splitlines(keepends=True)
    index = rng.randrange(len(lines))
    yield "".join(lines[:index] + lines[index + 1:])  # a line dropped
    yield "".join(lines[:index] + [" " * rng.randrange(1, 8) + lines[index]] + lines[index + 1:])  # bad indent
    yield text + "\nx = " + "(" * 50 + "torch.tensor(t)" + ")" * 50 + "\n"  # deep nesting
    yield text + "\ny = [" + ", ".join(["t.clone().detach()"] * 2000) + "]\n"  # a very long line
    yield "\ufeff" + text  # BOM in the text
    yield text.replace("torch", "torch\u00e9")  # non-ASCII identifiers


@pytest.mark.parametrize("index", range(len(FIXTURE_TEXTS)), ids=lambda i: rule_fixtures()[i].stem)
def test_mangled_fixtures(index):
    """Three of the mutations per fixture, rotating, so every kind meets several rules."""
    mutations = list(_mutations(FIXTURE_TEXTS[index], seed=index))
    for offset in range(3):
        survives(mutations[(index * 3 + offset) % len(mutations)])


def test_deeply_nested_expression_is_not_a_crash():
    source = "import torch\nx = " + "-" * 3000 + "torch.tensor(t)\n"
    survives(source)
