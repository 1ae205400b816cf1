"""The engine on its own: gating, bad input, imports, shadowing."""

import ast

import libcst
import pytest

from conftest import ENGINE_PROPERTY_FIXTURES, by_weight, fixture_findings, rule_fixtures
from flake8_tensorcopy import engine
from flake8_tensorcopy.engine import SourceError, lint_source
from flake8_tensorcopy.scan import scan
from flake8_tensorcopy.rules import ALL_RULES
from flake8_tensorcopy.rules.base import Rule


def test_empty_source_has_no_findings():
    assert lint_source("") == []


def test_syntax_error_is_a_source_error():
    with pytest.raises(SourceError):
        lint_source("def f(:\n")


def test_file_without_candidate_is_never_parsed_by_libcst(monkeypatch):
    def fail(_source):
        raise AssertionError("LibCST parse on a file with no candidate")

    monkeypatch.setattr(engine, "parse", fail)
    source = "import torch\ndef f(x: torch.Tensor):\n    return torch.zeros(3) + x.sum()\n"
    assert lint_source(source) == []


@pytest.mark.parametrize(
    "source, expected",
    [
        ("import torch\ntorch.tensor(t)", True),
        ("torch.tensor(t)", False),  # nothing here can be a tensor: no import of torch
        ("x.clone().detach()", True),
        ("from torch import tensor as T\nT(t)", True),
        ("import torch\ntorch.zeros(3)", False),
        ("import torch\nx = tensor", False),  # a name, not a call
        ("from torch import tensor as T\nU(t)", False),
    ],
)
def test_candidate_scan_for_call_rules(source, expected):
    features = scan(ast.parse(source))
    assert any(rule.wants(features) for rule in ALL_RULES if "sharing" not in rule.events) is expected


@pytest.mark.parametrize(
    "source, expected",
    [
        ("import torch\nx.add_(1)", True),
        ("import numpy as np\na[0] = 1", True),
        ("import torch\ntotal += 1", True),
        ("import torch\nopt.step()", True),
        ("import torch\ntrain_one_epoch(model)", True),
        ("y = x.detach()\ny.mul_(2)", True),  # detach proves a tensor without any import
        ("import torch\ny = x.view(-1)", False),  # an alias but no write
        ("x.add_(1)\na[0] = 1", False),  # writes, but nothing here can be a tensor
    ],
)
def test_candidate_scan_for_alias_rules(source, expected):
    features = scan(ast.parse(source))
    assert any(rule.wants(features) for rule in ALL_RULES if "sharing" in rule.events) is expected


@pytest.mark.parametrize(
    "source",
    [
        "import torch as th\ndef f(t: th.Tensor):\n    return th.tensor(t)\n",
        "from torch import tensor as T, Tensor\ndef f(t: Tensor):\n    return T(t)\n",
        "import torch.nn as nn\nimport torch\ndef f(p: nn.Parameter):\n    return torch.tensor(p)\n",
        "from torch import nn\nimport torch\np = nn.Parameter(torch.ones(2))\nq = torch.tensor(p)\n",
        "import torch\ndef f(t: 'torch.Tensor'):\n    return torch.tensor(t)\n",
        "import torch\nfrom typing import Optional\ndef f(t: Optional[torch.Tensor]):\n    return torch.tensor(t)\n",
        "import torch\ndef f(t: torch.Tensor | None):\n    return torch.tensor(t)\n",
    ],
)
def test_import_spellings_resolve(source, lint):
    assert [code for _line, code in lint(source)] == ["TEN101"]


@pytest.mark.parametrize(
    "source",
    [
        # a parameter named torch shadows the module
        "import torch\nfrom torch import Tensor\ndef f(torch, t: Tensor):\n    return torch.tensor(t)\n",
        # a local rebinding shadows it
        "import torch\ndef f():\n    t = torch.ones(2)\n    torch = object()\n    return torch.tensor(t)\n",
        # a rebound name is no longer a tensor
        "import torch\ndef f():\n    t = torch.ones(2)\n    t = t.tolist()\n    return torch.tensor(t)\n",
        # a tensor in one branch, a list in the other: unknown
        "import torch\ndef f(c):\n    t = torch.ones(2) if c else [1]\n    if c:\n        u = torch.ones(2)\n"
        "    else:\n        u = [1.0]\n    return torch.tensor(t), torch.tensor(u)\n",
        # Tensor imported from somewhere else entirely
        "import torch\nfrom tensorflow import Tensor\ndef f(t: Tensor):\n    return torch.tensor(t)\n",
    ],
)
def test_shadowing_and_merges_stay_silent(source, lint):
    assert lint(source) == []


def test_branch_that_leaves_does_not_weaken_what_follows(lint):
    source = (
        "import torch\n"
        "def f(c):\n"
        "    t = torch.ones(2)\n"
        "    if c:\n"
        "        t = [1.0]\n"
        "        return t\n"
        "    return torch.tensor(t)\n"
    )
    assert lint(source) == [(7, "TEN101")]


def test_function_body_sees_module_names_bound_after_the_def(lint):
    source = "def f():\n    return torch.tensor(WEIGHTS)\nimport torch\nWEIGHTS = torch.ones(3)\n"
    assert lint(source) == [(2, "TEN101")]


def test_self_copied_to_another_name_is_the_same_instance(lint):
    """``other = self``: ``other.w`` is ``self.w``, a tensor stored in ``__init__``."""
    source = (
        "import torch\n"
        "class M:\n"
        "    def __init__(self):\n"
        "        self.w = torch.ones(2)\n"
        "    def f(self):\n"
        "        other = self\n"
        "        return torch.tensor(other.w), torch.tensor(self.w)\n"
    )
    assert lint(source) == [(7, "TEN101"), (7, "TEN101")]


@pytest.mark.parametrize(
    "test, body",
    [
        ("isinstance(size, torch.Size)", "size = torch.tensor(size)"),
        ("not isinstance(size, torch.Tensor)", "size = torch.tensor(size)"),
        ("isinstance(size, (list, tuple))", "size = torch.tensor(size)"),
    ],
)
def test_isinstance_narrows_what_a_name_holds(test, body, lint):
    source = f"import torch\ndef f(size: torch.Tensor):\n    if {test}:\n        {body}\n    return torch.tensor(size)\n"
    assert lint(source) == [(5, "TEN101")]


def test_isinstance_of_tensor_narrows_the_else_branch(lint):
    source = (
        "import torch\ndef f(x: torch.Tensor):\n    if isinstance(x, torch.Tensor):\n        a = torch.tensor(x)\n"
        "    else:\n        a = torch.tensor(x)\n    return a\n"
    )
    assert lint(source) == [(4, "TEN101")]


def test_positions_after_header_comments_crlf_and_other_statements(lint):
    source = "# a header\r\n\r\n# more\r\nimport torch\r\nX = 1\r\n\r\n\r\ndef f(t: torch.Tensor):\r\n    return (torch.tensor(t))\r\n"
    from flake8_tensorcopy.engine import lint_source as lint_exact

    (finding,) = lint_exact(source)
    assert (finding.line, finding.col, finding.end_line, finding.end_col) == (9, 12, 9, 27)


def _quiet_bodies_left_out_change_nothing(path, every_rule_alone: bool):
    """flake8 parses only what can be reported; the fixer parses everything: same findings, and
    one rule selected alone finds what it finds among all (the whole parse is done once for
    them), except that a rule that yields (opinionated, or ``yields_to``) alone also speaks
    where the rule it yields to would have covered it. Without ``every_rule_alone``, alone are
    only the rules that find something in the file and those that yield."""
    from flake8_tensorcopy.engine import lint_module

    def found(rules, whole):
        if rules is ALL_RULES and not whole:  # lint_source's own call: the session's lint of the fixture
            findings = fixture_findings(path)
        else:
            findings = lint_module(source, rules=rules, whole=whole)[1]
        return [(f.line, f.col, f.code, f.message) for f in findings]

    source = path.read_text(encoding="utf-8")
    whole = found(ALL_RULES, True)
    reported = {f[2] for f in whole}
    alone = [rule for rule in ALL_RULES
             if every_rule_alone or rule.code in reported or rule.opinionated or rule.yields_to]
    for rules in [ALL_RULES] + [(rule,) for rule in alone]:
        codes = {rule.code for rule in rules}
        yields = len(rules) == 1 and (rules[0].opinionated or rules[0].yields_to)
        expected = found(rules, True) if yields else [f for f in whole if f[2] in codes]
        assert found(rules, False) == expected, sorted(codes)


@pytest.mark.parametrize("path", by_weight(rule_fixtures(), code=lambda path: path.stem,
                                           default_run=ENGINE_PROPERTY_FIXTURES))
def test_leaving_quiet_bodies_out_of_the_parse_changes_no_finding(path):
    _quiet_bodies_left_out_change_nothing(path, every_rule_alone=False)


@pytest.mark.slow  # every rule alone on every fixture: exhaustive, left out of the default suite (< 3 min)
@pytest.mark.parametrize("path", rule_fixtures(), ids=lambda path: path.stem)
def test_leaving_quiet_bodies_out_of_the_parse_changes_no_finding_for_any_rule_alone(path):
    _quiet_bodies_left_out_change_nothing(path, every_rule_alone=True)


def test_quiet_class_with_decorated_first_method_still_parses():
    source = (
        "import torch\n\n\nclass Quiet:\n    @staticmethod\n    def f(x):\n        return x\n\n\n"
        "def loud(t: torch.Tensor):\n    return torch.tensor(t)\n"
    )
    assert [(f.line, f.code) for f in lint_source(source)] == [(11, "TEN101")]


def test_quiet_method_whose_body_shares_the_signature_line_still_parses():
    source = (
        "import torch\n\n\nclass Camera:\n    def shift(self, t: torch.Tensor):\n        t += 1\n\n"
        "    def project(\n        self, x: torch.Tensor\n    ) -> torch.Tensor: ...\n\n"
        "    def loud(self, t: torch.Tensor):\n        return torch.tensor(t)\n"
    )
    assert [(f.line, f.code) for f in lint_source(source)] == [(13, "TEN101")]


@pytest.fixture
def parsed(monkeypatch):
    """The sources LibCST is asked to parse during the test."""
    texts = []
    real_parse = engine.parse
    monkeypatch.setattr(engine, "parse", lambda text: texts.append(text) or real_parse(text))
    return texts


def test_quiet_function_bodies_are_left_out_of_the_parse(parsed):
    source = (
        "import torch\n\n\ndef quiet(x):\n    '''doc'''\n    return x + 1\n\n\n"
        "def loud(t: torch.Tensor):\n    return torch.tensor(t)\n"
    )
    assert [(f.line, f.code) for f in lint_source(source)] == [(10, "TEN101")]
    assert parsed == [
        "import torch\n\n\ndef quiet(x):\n    pass\n\n\n\ndef loud(t: torch.Tensor):\n    return torch.tensor(t)\n"
    ]


@pytest.mark.parametrize("shape", ["strings", "attributes", "methods", "unary_default"])
def test_deeply_nested_statement_is_a_one_line_source_error(shape):
    from conftest import deeply_nested

    assert [finding.code for finding in lint_source(deeply_nested(shape, depth=20))] == ["TEN101"]
    with pytest.raises(SourceError) as raised:
        lint_source(deeply_nested(shape))
    assert type(raised.value) is SourceError
    assert str(raised.value) == "too deeply nested (Python's recursion limit reached in LibCST or the analysis)"


def test_internal_failure_is_an_internal_error_in_one_line(monkeypatch):
    """A bug of ours (here a KeyError whose key is a whole node) becomes one short line."""
    import libcst

    def broken(tree, default_dtype, default_device):
        raise KeyError(libcst.parse_module("import torch\nx = torch.zeros(3)\n"))

    monkeypatch.setattr(engine, "build_model", broken)
    with pytest.raises(engine.InternalError) as raised:
        lint_source("import torch\ndef f(t: torch.Tensor):\n    return torch.tensor(t)\n")
    message = str(raised.value)
    assert message.startswith("internal error (KeyError: Module(")
    assert "\n" not in message and len(message) < 160


def test_a_line_beyond_the_limit_is_refused_before_any_parse(monkeypatch):
    def fail(*_args, **_kwargs):
        raise AssertionError("parsed")

    monkeypatch.setattr(engine, "parse", fail)
    monkeypatch.setattr(engine, "scan_statements", fail)
    source = "import torch\nx = [" + "torch.zeros(1), " * 320_000 + "]\n"  # 5 MB on one line
    with pytest.raises(SourceError, match=r"^a line of 5,120,006 characters is too long \(the limit is 10,000\)$"):
        lint_source(source)


def test_size_limit_counts_what_libcst_would_parse(monkeypatch):
    """Quiet bodies left out of the parse do not count; a module that is still too big is refused."""
    monkeypatch.setattr(engine, "MAX_PARSED_CHARS", 2_000)
    quiet = "def quiet(x):\n" + "    x = x + 1\n" * 200  # 2,800 characters no rule wants
    finding = "import torch\n\n\ndef f(t: torch.Tensor):\n    return torch.tensor(t)\n\n\n"
    assert [(f.line, f.code) for f in lint_source(finding + quiet)] == [(5, "TEN101")]
    loud = "def loud(t: torch.Tensor):\n" + "    t = torch.tensor(t)\n" * 100
    with pytest.raises(SourceError, match=r"^too large \(2,\d{3} characters to parse; the limit is 2,000\)$"):
        lint_source(finding + loud)


def test_quiet_helper_a_summary_needs_keeps_its_body(parsed):
    """A helper no rule reports on stays in the parse when it returns memory of a parameter:
    its call site's finding rests on its summary (the same finding as with the whole parse)."""
    source = (
        "import torch\n\n\ndef as_is(images):\n    return images\n\n\n"
        "def doubled(x):\n    return x * 2\n\n\n"
        "def scale(images: torch.Tensor):\n    grid = as_is(images)\n    grid.mul_(255)\n    return grid\n"
    )
    assert [(f.line, f.col, f.code) for f in lint_source(source)] == [(13, 11, "TEN206")]
    assert "    return images\n" in parsed[0]
    assert "    return x * 2\n" not in parsed[0]
    whole = [(f.line, f.code) for f in engine.lint_module(source, whole=True)[1]]
    assert whole == [(13, "TEN206")]


def test_an_opinionated_finding_steps_aside_for_a_hazard_on_the_same_expression(lint):
    """TEN901 calls ``.data`` a legacy spelling: where TEN203 reports the alias ``w.data`` makes (line 5)
    it stays silent; on a ``.data`` no hazard rule reports (line 11) it still speaks."""
    source = (
        "import torch\n\n\ndef keep(w: torch.Tensor):\n    backup = w.data\n    w.add_(1)\n    return backup\n\n\n"
        "def peek(w: torch.Tensor):\n    view = w.data\n    return view.sum()\n"
    )
    assert lint(source) == [(5, "TEN203"), (11, "TEN901")]


def test_an_opinion_says_what_the_code_is_never_that_it_is_safe(lint):
    """``.data`` read on line 6 is a legacy spelling while another alias of the same weights is a
    hazard (TEN201, line 10): the opinion words what the code is, and no claim that nothing is
    wrong there."""
    source = (
        "import torch\nfrom torch import nn\n\n\ndef weights(layer: nn.Linear):\n"
        "    return layer.weight.data.sum()\n\n\n"
        "def scaled(layer: nn.Linear):\n    array = layer.weight.detach().numpy()\n    array /= 2\n    return array\n"
    )
    assert lint(source) == [(6, "TEN901"), (10, "TEN201")]
    (opinion,) = [finding for finding in lint_source(source) if finding.code == "TEN901"]
    assert opinion.message == ("layer.weight.data is a legacy spelling whose writes autograd's version counter "
                               "never sees; use layer.weight.detach()")


class _Style(Rule):
    """Reports every ``x.real`` the model read."""

    code = "TEN998"  # a TEN9xx code: opinionated
    attributes = ("real",)

    def query(self, model, site):
        for node in ast.walk(site.tree):
            if type(node) is ast.Attribute and node.attr == "real":
                site.report(self.code, site.node_of(node), "style")


class _Hazard(Rule):
    """Reports every call of ``abs`` the model recorded."""

    code = "TEN197"
    calls = ("abs",)

    def query(self, model, site):
        for event in model.events.find("call"):
            if event.detail.get("callee") == "abs":
                site.report(self.code, site.node_of(event.node), "hazard")


def test_any_opinionated_rule_yields_to_any_hazard_covering_or_inside_its_node():
    """The engine knows no code: an opinionated finding on a node inside a hazard's (line 5),
    or holding one (line 6), is dropped; apart from one (line 7) it stays."""
    source = (
        "import torch\n\n\ndef f(t: torch.Tensor):\n    a = t.real.abs()\n    b = (t.abs()).real\n"
        "    return t.real\n"
    )
    found = [(finding.line, finding.code) for finding in lint_source(source, rules=(_Style(), _Hazard()))]
    assert found == [(5, "TEN197"), (6, "TEN197"), (7, "TEN998")]


class _Deferring(_Hazard):
    code = "TEN196"
    yields_to = ("TEN197",)


def test_a_hazard_rule_yields_only_to_the_codes_it_names():
    source = "import torch\n\n\ndef f(t: torch.Tensor):\n    return t.abs()\n"
    together = [finding.code for finding in lint_source(source, rules=(_Deferring(), _Hazard(), _Style()))]
    alone = [finding.code for finding in lint_source(source, rules=(_Deferring(),))]
    assert (together, alone) == (["TEN197"], ["TEN196"])


def assert_gated(source: str, parsed: list, expected: list, kept: str, left_out: str) -> None:
    """The lint finds ``expected`` (line, column, code), as the whole parse does, from a parse
    of ``source`` holding the line ``kept`` and not ``left_out``."""
    assert [(f.line, f.col, f.code) for f in lint_source(source)] == expected
    assert kept in parsed[0] and left_out not in parsed[0]
    assert [(f.line, f.col, f.code) for f in engine.lint_module(source, whole=True)[1]] == expected


def test_a_method_storing_on_self_keeps_its_body_and_a_quiet_one_is_left_out(parsed):
    """An alias put into a container on ``self`` is observed by a write anywhere in the file,
    so that method stays in the parse; a method that stores nothing and writes nothing (quiet)
    does not, and the finding is the whole parse's."""
    source = (
        "import torch\n\n\nclass Keeper:\n"
        "    def __init__(self, net: torch.nn.Module):\n        self.params = list(net.parameters())\n"
        "        self.kept = []\n\n"
        "    def keep(self):\n        for p in self.params:\n            self.kept.append(p.detach())\n\n"
        "    def total(self):\n        return sum(k.sum() for k in self.kept)\n\n\n"
        "def train(net: torch.nn.Module, batches):\n    opt = torch.optim.SGD(net.parameters(), lr=0.1)\n"
        "    for x in batches:\n        net(x).sum().backward()\n        opt.step()\n"
    )
    assert_gated(source, parsed, [(11, 29, "TEN203")], kept="            self.kept.append(p.detach())\n",
                 left_out="        return sum(k.sum() for k in self.kept)\n")


def test_a_quiet_class_keeps_a_method_whose_summary_a_call_site_needs(parsed):
    """``Volume`` stores nothing and writes nothing, but ``volume.slab(k)`` is read through the
    summary of ``slab``: that method stays in the parse, its quiet sibling does not."""
    source = (
        "import numpy as np\nimport torch\n\n\ndef centered(a: np.ndarray):\n    a -= a.mean()\n    return a\n\n\n"
        "class Volume:\n    voxels: torch.Tensor\n\n    def slab(self, k):\n        return self.voxels[k:k + 4]\n\n"
        "    def size(self):\n        return len(self.voxels)\n\n\n"
        "def centered_slab(volume: Volume, k):\n    slab = volume.slab(k)\n    return centered(slab.numpy())\n"
    )
    assert_gated(source, parsed, [(22, 20, "TEN201")], kept="        return self.voxels[k:k + 4]\n",
                 left_out="        return len(self.voxels)\n")


@pytest.fixture
def resolved(monkeypatch):
    """The modules PositionProvider is resolved on during the test."""
    from libcst.metadata import MetadataWrapper

    modules = []
    monkeypatch.setattr(engine, "MetadataWrapper", lambda module, **kwargs: modules.append(
        module) or MetadataWrapper(module, **kwargs))
    return modules


@pytest.mark.parametrize("code", ["TEN208", "TEN306", "TEN401",
                                  pytest.param("TEN203", marks=pytest.mark.slow)])  # (the largest: -m slow)
def test_positions_of_pruned_statements_are_the_whole_modules(code, resolved):
    """``positions_of`` resolves positions on pruned copies of the statements holding the
    nodes: for random sets of nodes of a fixture (expressions deep in methods, loops and
    branches, and statements), every position is the one PositionProvider gives over the
    whole module, which is never resolved itself; what is resolved is a small part of it."""
    import random

    from libcst.metadata import MetadataWrapper, PositionProvider

    from conftest import FIXTURES
    from flake8_tensorcopy.syntax import subtree

    source = (FIXTURES / f"{code}.py").read_text(encoding="utf-8")
    module = libcst.parse_module(source)
    tree = ast.parse(source)
    whole = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    candidates = [node for node in subtree(module)
                  if isinstance(node, (libcst.BaseExpression, libcst.BaseSmallStatement, libcst.BaseStatement))]
    lines = source.splitlines(keepends=True)
    chooser = random.Random(code)
    top_level = 0  # what resolving each top-level statement holding a node would generate
    for _ in range(40):
        nodes = chooser.sample(candidates, chooser.randint(1, 4))
        found = engine.positions_of(module, tree, nodes)
        assert {node: found[node] for node in nodes} == {node: whole[node] for node in nodes}
        holding = {statement for statement in tree.body for node in nodes
                   if statement.lineno <= whole[node].start.line <= statement.end_lineno}
        top_level += sum(len("".join(lines[s.lineno - 1:s.end_lineno])) for s in holding)
    assert module not in resolved
    assert sum(len(part.code) for part in resolved) < 0.8 * top_level


def test_positions_of_a_node_in_a_decorator_resolve_its_statement_not_the_module(resolved):
    source = "import dataclasses\n\n\n# kept\n@dataclasses.dataclass\nclass Point:\n    x: int\n"
    module = libcst.parse_module(source)
    name = module.body[1].decorators[0].decorator.value
    where = engine.positions_of(module, ast.parse(source), [name])[name]
    assert (where.start.line, where.start.column, where.end.line, where.end.column) == (5, 1, 5, 12)
    assert module not in resolved


def test_positions_of_a_node_in_a_method_resolve_its_statement_not_its_class(resolved):
    source = (
        "import torch\n\n\nclass Keeper:\n    def keep(self, p):\n        # kept\n"
        "        self.kept.append(\n            p.detach())\n\n    def other(self):\n        return 1\n"
    )
    module = libcst.parse_module(source)
    call = module.body[1].body.body[0].body.body[0].body[0].value.args[0].value
    where = engine.positions_of(module, ast.parse(source), [call])[call]
    assert (where.start.line, where.start.column, where.end.line, where.end.column) == (8, 12, 8, 22)
    assert [part.code for part in resolved] == [
        "\n\nclass Keeper:\n    def keep(self, p):\n        # kept\n        self.kept.append(\n            p.detach())\n"]


def test_the_scans_walk_meets_every_node_of_ast_walk_but_the_contexts():
    from collections import Counter

    from conftest import FIXTURES
    from flake8_tensorcopy.scan import descendants

    for path in sorted(FIXTURES.glob("TEN*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        expected = Counter(id(node) for node in ast.walk(tree) if not isinstance(node, ast.expr_context))
        assert Counter(id(node) for node in descendants(tree)) == expected  # operators are shared: counted


@pytest.mark.parametrize("setter", ['torch.set_default_device("cuda")\n', 'torch.set_default_tensor_type(torch.cuda.FloatTensor)\n',
                                    'with torch.device("cuda"):\n    pass\n'])
def test_a_file_that_may_change_the_default_device_leaves_a_factorys_device_in_doubt(setter):
    """``torch.randn(5)`` is a host tensor where the file leaves the default device alone, so
    ``.to("cpu")`` of the leaf is the leaf itself, its ``.grad`` filled; where the file may put
    factories' tensors on a GPU, the move may copy and the ``.grad`` read may be of a non-leaf."""
    body = ('inputs = torch.randn(5, requires_grad=True)\nmoved = inputs.to("cpu")\n'
            "moved.sum().backward()\nprint(moved.grad)\n")
    assert lint_source("import torch\n\n" + body) == []
    found = lint_source("import torch\n" + setter + body)
    line = 5 + setter.count("\n")  # after the import, the setter and the body's first four lines
    assert [(finding.code, finding.line, finding.col) for finding in found] == [("TEN303", line, 6)]


def test_a_file_setting_the_default_dtype_leaves_a_cast_of_a_factory_in_doubt():
    """``torch.tensor([0.5])`` is float32 where the file leaves the default dtype alone, so
    ``.double()`` of it copies; a file calling ``torch.set_default_dtype`` may make it float64."""
    body = ("def prep(image):\n    x = image.double()\n    x.clamp_(0.0, 1.0)\n    return x\n\n\n"
            "raw = torch.tensor([-0.5, 0.5])\nprep(raw)\nprint(raw)\n")
    assert lint_source("import torch\n\n\n" + body) == []
    found = lint_source("import torch\n\ntorch.set_default_dtype(torch.float64)\n" + body)
    assert [(finding.code, finding.line, finding.col) for finding in found] == [("TEN205", 5, 8)]
