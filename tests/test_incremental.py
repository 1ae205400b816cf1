"""The language server's incremental LibCST parse (``incremental.ModuleCache``) gives what a
whole parse gives: the same module (node for node, and its code is the source) and the same
findings (codes, positions, messages, fixed text), over every fixture and edits of them; and
it parses again only the chunks an edit touched, falling back to a whole parse on any doubt."""

import ast
import random

import libcst as cst
import pytest

from conftest import ENGINE_PROPERTY_FIXTURES, FIXTURES, by_weight, fixture_findings, rule_fixtures
from flake8_tensorcopy.engine import SourceError, _without_quiet_bodies, lint_source
from flake8_tensorcopy.fixer import source_lines
from flake8_tensorcopy.incremental import ModuleCache
from flake8_tensorcopy.output import finding_row
from flake8_tensorcopy.rules import ALL_RULES
from flake8_tensorcopy.scan import scan_statements

FIXTURE_TEXTS = {path.stem: path.read_text(encoding="utf-8") for path in rule_fixtures()}


def assert_same_module(source: str, modules: ModuleCache) -> None:
    """The cache's module is the whole parse's, and its code the source (where LibCST's own
    whole parse gives the source back: a line holding only a backslash it does not)."""
    try:
        whole = cst.parse_module(source)
    except cst.ParserSyntaxError:  # LibCST refuses what the ast accepts: so does the cache
        with pytest.raises(SourceError):
            modules.parse(source, ast.parse(source))
        return
    module = modules.parse(source, ast.parse(source))
    assert module.deep_equals(whole)
    assert module.code == whole.code
    if all(line.strip() != "\\" for line in source.splitlines()):
        assert module.code == source


def rows(source: str, modules=None, findings=None):
    """Findings with everything a client sees (code, range, message and the fix's edits), or
    the message of the SourceError that stops the lint; ``findings``: ``lint_source(source)``'s
    when the caller has them."""
    lines = source_lines(source)
    try:
        if findings is None:
            findings = lint_source(source, modules=modules)
        return [finding_row(finding, True, lines) for finding in findings]
    except SourceError as error:
        return str(error)


def engine_input(source: str) -> str:
    """What the engine hands LibCST when linting: quiet bodies blanked."""
    tree = ast.parse(source)
    return _without_quiet_bodies(source, tree, scan_statements(tree), ALL_RULES)


@pytest.mark.parametrize("code", by_weight(sorted(FIXTURE_TEXTS), default_run={"TEN208"}))
def test_a_fixture_assembled_from_its_chunks_is_its_whole_parse(code):
    """The chunked parse is LibCST's, not a rule's: the default run takes one fixture, ``-m slow`` all."""
    for source in (FIXTURE_TEXTS[code], engine_input(FIXTURE_TEXTS[code])):
        modules = ModuleCache()
        assert_same_module(source, modules)
        assert modules.chunks > 1  # it was cut: the incremental path, not the fallback
        assert_same_module(source, modules)
        assert modules.reused == modules.chunks


def body_line_added(source: str, text: str) -> str:
    """``source`` with a line typed after the first statement of the last function body."""
    functions = [node for node in ast.walk(ast.parse(source)) if isinstance(node, ast.FunctionDef)]
    statement = max(functions, key=lambda function: function.lineno).body[0]
    lines = source.splitlines(keepends=True)
    lines.insert(statement.end_lineno, " " * statement.col_offset + text + "\n")
    return "".join(lines)


@pytest.mark.parametrize("code", by_weight(sorted(FIXTURE_TEXTS), default_run=ENGINE_PROPERTY_FIXTURES))
def test_an_edit_in_a_function_body_parses_one_chunk_again_and_finds_what_a_whole_lint_finds(code):
    source = FIXTURE_TEXTS[code]
    modules = ModuleCache()
    assert rows(source, modules) == rows(source, findings=fixture_findings(FIXTURES / f"{code}.py"))
    source = body_line_added(source, "edited = 1")
    assert rows(source, modules) == rows(source)
    assert modules.reused == modules.chunks - 1


EDIT_LINES = ["", "  ", "# note", "    # indented note", "        # deeper note", "x = 1", "    y = x", "def g():",
              "    return 2", "class K:", "if x:", "\\", '"""', "a = 1; b = 2", "@decorator", "    pass", "z = (", ")",
              "    def h(self):", "        return self", "    @property"]


def random_edit(source: str, chooser: random.Random) -> str:
    """One line inserted, deleted or replaced, anywhere."""
    lines = source.splitlines(keepends=True)
    where = chooser.randrange(len(lines) + 1)
    kind = chooser.choice(["insert", "delete", "replace"])
    new = [chooser.choice(EDIT_LINES) + "\n"] if kind != "delete" else []
    end = where if kind == "insert" else where + 1
    return "".join(lines[:where] + new + lines[end:])


def parses(source: str) -> bool:
    try:
        ast.parse(source)
    except SyntaxError:
        return False
    return True


@pytest.mark.parametrize("edits", [pytest.param(10, id="default"),
                                   pytest.param(600, id="many", marks=pytest.mark.slow)])
def test_random_edits_give_the_whole_parse_and_its_findings(edits):
    """Chains of random line edits of the fixtures, each version parsed with the cache its
    previous one filled: the module and the findings are the whole parse's, and most versions
    reused chunks (the inputs reach the incremental path)."""
    chooser = random.Random(15)
    reusing = checked = 0
    texts = sorted(FIXTURE_TEXTS.items())
    while checked < edits:
        _, source = chooser.choice(texts)
        modules = ModuleCache()
        modules.parse(source, ast.parse(source))
        for _ in range(4):
            source = random_edit(source, chooser)
            if not parses(source):
                continue
            assert_same_module(source, modules)
            reusing += modules.reused > 0
            if checked % 8 == 0:
                assert rows(source, ModuleCache()) == rows(source)
            checked += 1
    assert reusing >= edits * 0.5  # (an edit of a top-level line parses the module again, as it should)


def test_an_indented_comment_after_a_block_keeps_the_statements_around_it_together():
    # LibCST gives the comment to f's block: parsed apart from f, it would go to ``y``
    source = "import torch\n\n\ndef f(x):\n    return x\n    # kept with f\n\ny = torch.ones(2)\nz = y\n"
    modules = ModuleCache()
    assert_same_module(source, modules)
    assert modules.chunks == 3  # import | def f ... y = ... | z = y


@pytest.mark.parametrize("tail", ["# a comment typed at the end\n", "\n\n# two blank lines and a comment\n",
                                  "    # an indented comment\n"])
def test_lines_after_a_last_class_still_cut_it_into_its_members(tail):
    """Typing after the file's last class (a comment) parses again only its last member: the
    lines after the class are the module's footer (or, indented, its block's: parsed whole)."""
    source = ("import torch\n\n\nclass Keeper:\n    def keep(self, p):\n        self.kept = p.detach()\n\n"
              "    def drop(self):\n        self.kept = None\n")
    modules = ModuleCache()
    assert_same_module(source, modules)
    assert modules.chunks == 3  # import | class head and keep | drop
    assert_same_module(source + tail, modules)
    if tail.startswith(" "):
        assert modules.chunks == 0  # LibCST gives the comment to the class's block: not cut
    else:
        assert (modules.chunks, modules.reused) == (3, 2)


@pytest.mark.parametrize("source", [
    "import torch\r\n\r\nx = torch.ones(2)\r\ny = x\r\n",  # CR line ends
    "import torch\n\n\ndef f(x):\n  return x\n\n\ny = f(torch.ones(2))\n",  # not four spaces
], ids=["crlf", "two-space-indent"])
def test_what_it_does_not_cut_is_parsed_whole(source):
    modules = ModuleCache()
    for _ in range(2):
        assert_same_module(source, modules)
        assert modules.chunks == 0 and modules.reused == 0


def test_a_class_whose_body_the_engine_blanks_stays_one_chunk_of_a_cut_module():
    """A class of fields alone (a dataclass) no rule wants is parsed as ``pass``: its chunk is
    not cut by members the blanked text no longer has, so the module is still cut."""
    source = ("import dataclasses\n\nimport torch\n\n\n@dataclasses.dataclass\nclass Point:\n"
              "    \"\"\"A point.\"\"\"\n\n    x: int\n    y: int = 0\n\n\n"
              "def f(w: torch.Tensor):\n    v = w.detach()\n    w.add_(1)\n    return v\n")
    modules = ModuleCache()
    assert rows(source, modules) == rows(source)
    assert modules.chunks > 1
