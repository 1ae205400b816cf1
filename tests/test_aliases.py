"""The alias analysis queried directly on small snippets (module-level code, so the facts
left at the end of the walk are the module scope's)."""

import libcst as cst
import pytest

from flake8_tensorcopy.knowledge.conventions import snapshot_named
from flake8_tensorcopy.analysis.facts import Made, Source, StateSnapshot
from flake8_tensorcopy.analysis.walker import Analysis
from flake8_tensorcopy.rules import ALL_RULES
from flake8_tensorcopy.rules.aliasing import RULES as ALIAS_RULES, deciding_operation

RULE_OF = {made: rule.code for rule in ALIAS_RULES for made in rule.made_by}  # the code that claims a fact
RULE_OF.update({Made.DETACH: "TEN203", Made.SHALLOW_COPY: "TEN207"})  # the old analysis still makes their
# facts; the rules themselves query the model

PRELUDE = "import copy\nimport numpy as np\nimport torch\nimport torch.nn.functional as F\nx = torch.ones(3)\n"


def facts(body: str):
    """{(alias, source, the code that claims it, sides written)} holding after ``body`` runs."""
    analysis = Analysis(cst.parse_module(PRELUDE + body), ALL_RULES)
    analysis.run()
    return {
        (fact.alias_key, fact.source_key, RULE_OF[deciding_operation(fact.operations)],
         tuple(side for side, _node in fact.writes))
        for held in analysis.scope.aliases.values()
        for fact in held
    }


@pytest.mark.parametrize(
    "body, expected",
    [
        ("y = x.detach()\n", ("y", "x", "TEN203")),
        ("y = x.data\n", ("y", "x", "TEN203")),
        ("y = x.numpy()\n", ("y", "x", "TEN201")),
        ("y = x.detach().cpu().numpy()\n", ("y", "x", "TEN201")),
        ("y = np.asarray(x)\n", ("y", "x", "TEN201")),
        ("a = np.arange(3.0)\ny = torch.from_numpy(a)\n", ("y", "a", "TEN202")),
        ("a = np.arange(3.0)\ny = torch.as_tensor(a)\n", ("y", "a", "TEN202")),
        ("y = torch.as_tensor(x)\n", ("y", "x", "TEN205")),
        ("y = x.cpu()\n", ("y", "x", "TEN205")),
        ("y = x.to('cpu')\n", ("y", "x", "TEN205")),
        ("y = x.float()\n", ("y", "x", "TEN205")),
        ("y = copy.copy(x)\n", ("y", "x", "TEN207")),
    ],
)
def test_alias_made_by(body, expected):
    assert facts(body) == {expected + ((),)}


@pytest.mark.parametrize(
    "body, expected",
    [
        ("backup = {}\nbackup['w'] = x.detach()\n", {("backup['w']", "x", "TEN203", ())}),
        ("backup = {}\nfor k in 'ab':\n    backup[k] = x.detach()\n", {("backup[*]", "x", "TEN203", ())}),
        ("outs = [x, x]\nouts[-1] = x.cpu()\n", {("outs[-1]", "x", "TEN205", ())}),
        ("kept = []\nkept.append(x.cpu())\nx.add_(1)\n", {("kept[*]", "x", "TEN205", ("source",))}),
        ("kept = []\nkept.append(x)\n", set()),  # a reference put in a list is how lists work
        ("kept = []\nkept.append(x.cpu())\nkept = []\n", set()),  # the container is rebound
    ],
)
def test_container_items_keep_alias_facts(body, expected):
    assert facts(body) == expected


def test_loop_variable_over_parameters_is_keyed_by_the_model():
    """The next loop's ``p`` is the same memory as the first loop's: the write reaches the item."""
    body = ("m = torch.nn.Linear(2, 2)\nsaved = {}\nfor n, p in m.named_parameters():\n    saved[n] = p.detach()\n"
            "for p in m.parameters():\n    p.data.mul_(0)\n")
    held = facts(body)
    assert {(alias, source, code) for alias, source, code, _writes in held} == {("saved[*]", "m.parameters()[*]", "TEN203")}
    assert any("source" in writes for _alias, _source, _code, writes in held)


@pytest.mark.parametrize(
    "body",
    [
        "y = x.clone()\n",
        "y = x.detach().clone()\n",
        "y = x.numpy().copy()\n",
        "y = np.array(x)\n",
        "y = x.to('cpu', copy=True)\n",
        "y = x[torch.tensor([0, 2])]\n",  # advanced indexing copies
        "y = x[[0, 2]]\n",
        "y = copy.deepcopy(x)\n",
        "y = x.type()\n",  # a string
        "y = torch.from_numpy(np.stack([np.ones(2)]))\n",  # a temporary source
        "m = torch.nn.Linear(2, 2)\nbest = {k: v.clone() for k, v in m.state_dict().items()}\n",
        "y = u.view(-1)\n",  # u is unknown
        "y = x.detach()\ny = y + 1\n",  # the alias is rebound
        "y = x.detach()\nx = torch.zeros(3)\n",  # the source is rebound
        "x = x.view(-1)\n",  # a name viewing itself
    ],
)
def test_no_alias(body):
    assert facts(body) == set()


@pytest.mark.parametrize(
    "write, side",
    [
        ("x.add_(1)", "source"),
        ("x.detach().mul_(2)", "source"),
        ("x.data.zero_()", "source"),
        ("x[0] = 1", "source"),
        ("x += 1", "source"),
        ("torch.nn.init.zeros_(x)", "source"),
        ("F.relu(x, inplace=True)", "source"),
        ("torch.add(x, 1, out=x)", "source"),
        ("torch.relu_(x)", "source"),
        ("a[0] = 1", "alias"),
        ("a += 1", "alias"),
        ("a[a < 0] = 0", "alias"),
        ("np.copyto(a, np.zeros(3))", "alias"),
        ("np.add(a, 1, out=a)", "alias"),
        ("a.sort()", "alias"),
        ("a.fill(0)", "alias"),
        ("np.random.shuffle(a)", "alias"),
        ("fill_(a)", "alias"),  # a function of this module that writes its parameter
    ],
)
def test_in_place_writes(write, side):
    body = "def fill_(t):\n    t[:] = 0\na = x.numpy()\n" + write + "\n"
    assert facts(body) == {("a", "x", "TEN201", (side,))}


HELD_UNWRITTEN = {("a", "x", "TEN201", ())}


@pytest.mark.parametrize(
    "statement, expected",
    [
        ("x.requires_grad_()", HELD_UNWRITTEN),
        ("x.share_memory_()", HELD_UNWRITTEN),
        ("c = a + 1", HELD_UNWRITTEN),
        ("print(a.sum())", HELD_UNWRITTEN),
        ("b = x.add(1)", HELD_UNWRITTEN),
        ("a.copy()", HELD_UNWRITTEN),
        ("a = a + 1", set()),  # a new array: the alias ends (test_rebinding_is_not_a_write)
    ],
)
def test_not_writes(statement, expected):
    assert facts("a = x.numpy()\n" + statement + "\n") == expected


@pytest.mark.parametrize("statement, expected", [("a = a + 1", []), ("a += 1", [(3, "TEN201")])])
def test_rebinding_is_not_a_write(statement, expected, lint):
    """``a = a + 1`` makes a new array where ``a += 1`` writes the tensor's memory."""
    source = f"import torch\ndef f(t: torch.Tensor):\n    a = t.numpy()\n    {statement}\n    return t.sum()\n"
    assert lint(source) == expected


def test_branch_that_leaves_drops_its_alias():
    body = "def f(c):\n    pass\nif c:\n    y = x.view(-1)\n    raise ValueError\n"
    assert facts(body) == set()


def test_later_loop_iteration_sees_the_write(lint):
    source = PRELUDE + "prev = x.detach()\nfor i in range(3):\n    print(prev)\n    x.add_(1)\n"
    assert lint(source) == [(6, "TEN203")]


def test_alias_made_in_a_loop_is_a_new_one_each_iteration(lint):
    source = PRELUDE + "for i in range(3):\n    x.add_(1)\n    cur = x.detach()\n    print(cur)\n"
    assert lint(source) == []


def test_message_names_the_write_and_read_lines():
    from flake8_tensorcopy.engine import lint_source

    source = "import torch\n\ndef f(a: torch.Tensor):\n    c = a.detach()\n    a.add_(1)\n    print(c)\n"
    (finding,) = lint_source(source)
    assert (finding.code, finding.line) == ("TEN203", 4)
    assert finding.message == (
        "'c' shares memory with 'a' (detach() does not copy): 'a' is written in place on line 5 "
        "and 'c' read on line 6; use a.detach().clone()"
    )


def test_write_through_alias_of_a_blank_buffer_is_a_fill(lint):
    source = PRELUDE + "def f(y: torch.Tensor):\n    out = torch.zeros(4, 6)\n    left = out[:, :3]\n" \
        "    left.copy_(y)\n    return out\n"
    assert lint(source) == []


@pytest.mark.parametrize(
    "name, expected",
    [("best_state", True), ("w_prev", True), ("origX", True), ("initial", True), ("backup2", True),
     ("weights", False), ("prevent", False), ("boldness", False), ("self.best", True), ("current", False)],
)
def test_snapshot_names(name, expected):
    assert snapshot_named(name) is expected


TYPED = """import torch
from torch import nn


class Trainer(nn.Module):
    def __init__(self):
        super().__init__()
        self.model = nn.Linear(2, 2)

    def remember(self):
        self.best = self.model.state_dict()

    def restore(self):
        self.model.load_state_dict(self.best)


w = torch.randn(3)
a = w.numpy()
v = w.detach().view(-1)
kept = {}
kept["v"] = w[0]
"""


def test_facts_are_typed_values_not_positional_tuples():
    """What the walk leaves is read by field name: alias facts with their operations and source,
    state_dict snapshots of a class (a tuple read as ``origin[3]`` or ``snapshot[1]`` must not
    come back)."""
    analysis = Analysis(cst.parse_module(TYPED), ALL_RULES)
    analysis.run()
    held = {fact.alias_key: fact for facts in analysis.scope.aliases.values() for fact in facts}
    assert {key: (fact.operations, fact.op, fact.source) for key, fact in held.items()} == {
        "a": ((Made.NUMPY_VIEW,), "numpy()", Source(local=True)),
        "v": ((Made.VIEW, Made.DETACH), "view()", Source(local=True)),
        "kept['v']": ((Made.PARTIAL_VIEW,), "indexing", Source(local=True)),
    }
    (snapshot,) = analysis.scope.names["Trainer"].origin.facts.state_snapshots.values()
    assert type(snapshot) is StateSnapshot
    assert (snapshot.model_path, snapshot.op) == (".model", "state_dict()")
