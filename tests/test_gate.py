"""The gate (scan + ``Rule.wants`` + the engine's quiet bodies) is derived from what rules
subscribe to, so it cannot drift from where they report.

Three ways to show it: every subscription of every rule, reached by a minimal program, opens
the gate; a rule written today, declaring subscriptions, is gated with no other edit; and on
generated programs and on every fixture, each finding of the model's queries with the gate
forced open lies in a body the gate keeps for its rule, and the gated engine finds exactly
those findings.
"""

import ast
from collections import Counter

import libcst as cst
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import DEFAULT_RUN_FIXTURES, FIXTURES, fixture_findings, per_fixture
from flake8_tensorcopy import engine
from flake8_tensorcopy.engine import lint_source
from flake8_tensorcopy.model import build_model
from flake8_tensorcopy.rules import ALL_RULES, RULES_BY_CODE
from flake8_tensorcopy.rules.base import Rule
from flake8_tensorcopy.scan import EVENTS, TRAITS, scan, scan_statements

# What makes each trait hold, and a program where each event happens (a new entry of
# scan.EVENTS or scan.TRAITS fails test_every_event_and_trait_has_an_example until added here).
TRAIT_LINES = {"tensors": "import torch", "training": "loss.backward()"}
EVENT_PROGRAMS = {
    "sharing": "import torch\n\n\ndef f(w: torch.Tensor):\n    backup = w.detach()\n    w.add_(1)\n    return backup\n",
    "identity comparison": "import torch\n\n\ndef f(a, b):\n    return a is b\n",
    "accumulation": "import torch\n\n\ndef f(xs):\n    total = 0\n    for x in xs:\n        total += x\n",
    "in-place write": "import torch\n\n\ndef f(buf):\n    buf[0] = 1\n",
    "non-blocking copy": "import torch\n\n\ndef f(x):\n    return x.to('cpu', non_blocking=True)\n",
}


def forced_open(source: str, rules=ALL_RULES):
    """Every rule's query of the model with no gate and the whole source parsed by LibCST:
    the findings as (line, col, code)."""
    tree = ast.parse(source)
    module = cst.parse_module(source)
    model = build_model(tree)
    site = engine.ModelSite(lambda: module, tree, source)
    for rule in rules:
        rule.query(model, site)
    reports = engine._without_yielded(site.reports, rules)
    positions = engine.positions_of(module, tree, [report.node for report in reports]) if reports else {}
    return sorted((positions[r.node].start.line, positions[r.node].start.column, r.code) for r in reports)


def listener(event: str, code: str = "TEN999"):
    """A rule written today: it declares one event and writes no gate code."""

    class Listener(Rule):
        events = (event,)

    Listener.code = code
    return Listener()


def in_gated_body(source: str, findings) -> None:
    """Each finding lies where the gate is open for its rule: the rule wants the file, and the
    engine keeps (does not blank before the LibCST parse) the body holding the finding."""
    tree = ast.parse(source)
    scanned = scan_statements(tree)
    lines = source.splitlines()
    for line, _col, code in findings:
        rule = RULES_BY_CODE[code]
        assert rule.wants(scanned.file), (code, line)
        kept = engine._without_quiet_bodies(source, tree, scanned, [rule]).splitlines()
        assert kept[line - 1] == lines[line - 1], (code, line, source)


# --- every subscription opens the gate ----------------------------------------------------


def test_every_event_and_trait_has_an_example():
    assert set(EVENT_PROGRAMS) == set(EVENTS)
    assert set(TRAIT_LINES) == set(TRAITS)


def _prelude(rule) -> str:
    return "\n".join(TRAIT_LINES[trait] for trait in rule.requires) + "\n\n\n"


CALL_SHAPES = ("def f(x):\n    x.{name}()\n", "def f(x):\n    {name}(x)\n")
ATTRIBUTE_SHAPES = ("def f(x):\n    return x.{name}\n", "def f(x):\n    x.{name} = 1\n")


@pytest.mark.parametrize("rule", ALL_RULES, ids=lambda rule: rule.code)
def test_every_call_and_attribute_a_rule_subscribes_to_opens_the_gate(rule):
    cases = [name for name in rule.calls for _shape in CALL_SHAPES]
    sources = [_prelude(rule) + shape.format(name=name) for name in rule.calls for shape in CALL_SHAPES]
    sources += [_prelude(rule) + shape.format(name=name) for name in rule.attributes for shape in ATTRIBUTE_SHAPES]
    assert sources or rule.events, cases
    for source in sources:
        scanned = scan_statements(ast.parse(source))
        assert rule.wants(scanned.file) and rule.wants(scanned.statements[-1]), source


# a whole-fixture property (conftest.DEFAULT_RUN_FIXTURES): those three rules' fixtures in the default
# run, beside the generated programs below (every event, at least ten rules); every rule's under -m slow
@pytest.mark.parametrize("rule", per_fixture(ALL_RULES, code=lambda rule: rule.code,
                                             slow={rule.code for rule in ALL_RULES} - DEFAULT_RUN_FIXTURES))
def test_every_finding_of_a_rules_fixture_lies_where_the_gate_is_open(rule):
    """The rule's own fixture, with the gate forced open: each finding is in a body the gate
    keeps for the rule, and the gated engine finds the same."""
    source = (FIXTURES / f"{rule.code}.py").read_text(encoding="utf-8")
    whole = [finding for finding in forced_open(source) if finding[2] == rule.code]
    assert whole, rule.code
    in_gated_body(source, whole)
    assert sorted((f.line, f.col, f.code) for f in fixture_findings(FIXTURES / f"{rule.code}.py")
                  if f.code == rule.code) == whole


@pytest.mark.parametrize("event", sorted(EVENTS))
def test_a_new_rule_is_gated_by_its_event_with_no_other_edit(event):
    rule = listener(event)
    assert rule.wants(scan(ast.parse(EVENT_PROGRAMS[event])))
    assert not rule.wants(scan(ast.parse("import torch\n\n\ndef f(a, b):\n    return a == b\n")))


def test_a_rule_that_writes_its_own_gate_is_refused():
    with pytest.raises(TypeError, match="overrides wants"):
        class Wanting(Rule):
            def wants(self, features):
                return True

    with pytest.raises(TypeError, match="unknown events"):
        class Misspelled(Rule):
            events = ("comparisons",)

    with pytest.raises(TypeError, match="does not require 'tensors'"):
        class Untethered(Rule):
            requires = ("training",)


def test_an_accumulated_loss_without_a_write_is_reported():
    """``total = total + F.mse_loss(...)`` is no in-place write: the gate written by hand for
    TEN306 (a write or an ``append``) closed on it while the analysis reported it."""
    source = (
        "import torch.nn.functional as F\nfrom torch import nn\n\n\n"
        "def evaluate(model: nn.Module, xs):\n    total = 0\n    for x in xs:\n"
        "        total = total + F.mse_loss(model(x), x)\n    return float(total)\n"
    )
    assert [(f.line, f.col, f.code) for f in lint_source(source)] == [(8, 8, "TEN306")]


@pytest.mark.parametrize("statement, unrelated", [
    ("total = loss + total", "total = loss + other"),
    ('total["loss"] = total.get("loss", 0.0) + loss', 'total["loss"] = other.get("loss", 0.0) + loss'),
    ("total = 0.9 * total + 0.1 * loss", "total = 0.9 * other + 0.1 * loss"),
    ("total = loss if total is None else (total * 3 + loss) / 4", "total = loss if other is None else (other * 3 + loss) / 4"),
])
def test_an_accumulation_read_on_either_side_or_through_get_opens_the_gate(statement, unrelated):
    """``acc = v + acc``, ``d[k] = d.get(k, 0) + v`` and a smoothed or running mean of the
    accumulator read the accumulator they add to: in a file with no other accumulation the gate
    opens on them (it closed before: no finding); a sum read from another place is no accumulation."""
    source = (
        "import torch.nn.functional as F\nfrom torch import nn\n\n\n"
        "def fit(model: nn.Module, opt, xs, other):\n    total = {}\n    for x in xs:\n"
        "        loss = F.mse_loss(model(x), x)\n        loss.backward()\n        opt.step()\n"
        f"        {statement}\n    return total\n"
    )
    assert "accumulation" in scan(ast.parse(source)).events
    assert [(f.line, f.code) for f in lint_source(source)] == [(11, "TEN306")]
    assert "accumulation" not in scan(ast.parse(source.replace(statement, unrelated))).events


@pytest.mark.parametrize("statement", ["self.total += loss", "self.total = self.total + loss",
                                       "self.totals.append(loss)"])
def test_an_accumulation_on_a_methods_own_object_opens_the_gate_without_a_loop(statement):
    """Each call of a method is an iteration of its caller's loop: adding to ``self`` there is
    an accumulation as one inside a loop is (and TEN306 reports it where the method trains)."""
    source = (
        "import torch.nn.functional as F\n\n\nclass Step:\n    def __init__(self, model, opt):\n"
        "        self.model, self.opt, self.total, self.totals = model, opt, 0.0, []\n\n"
        "    def step(self, x):\n        loss = F.mse_loss(self.model(x), x)\n        loss.backward()\n"
        f"        {statement}\n"
    )
    scanned = scan_statements(ast.parse(source))
    assert "accumulation" in scanned.file.events
    assert [(f.line, f.code) for f in lint_source(source)] == [(11, "TEN306")]
    assert "accumulation" not in scan(ast.parse(source.replace("self.t", "t"))).events


CALLABLE_WRITER = (
    "import numpy as np\nimport torch\n\n\nclass AddNoise:\n    def __init__(self, scale):\n"
    "        self.scale = scale\n\n    def __call__(self, x):\n        {body}\n        return x\n\n\n"
    "class Recordings:\n    def __init__(self, clips, augment=None):\n        self.clips = clips\n"
    "        self.augment = augment\n\n    def __getitem__(self, i):\n"
    "        clip = torch.from_numpy(self.clips[i])\n        if self.augment is not None:\n"
    "            clip = self.augment(clip)\n        return clip\n\n\n"
    "def recordings(clips):\n    return Recordings(clips, AddNoise(0.1))\n"
)


def test_an_object_whose_call_writes_handed_to_another_class_opens_its_callers_bodies():
    """``Recordings(clips, AddNoise(0.1))`` with ``AddNoise.__call__`` writing what it is given:
    ``self.augment(clip)`` in another class may be that write, so its body is parsed (TEN202 on
    the dataset's own arrays); with a ``__call__`` that copies, nothing opens it."""
    writing = CALLABLE_WRITER.format(body="x.add_(self.scale)")
    assert [(f.line, f.col, f.code) for f in lint_source(writing)] == [(20, 15, "TEN202")]
    assert forced_open(writing) == [(20, 15, "TEN202")]
    copying = CALLABLE_WRITER.format(body="x = x + self.scale")
    assert lint_source(copying) == [] and forced_open(copying) == []
    getitem = {source: scan_statements(ast.parse(source)).methods[3][1] for source in (writing, copying)}
    assert getitem[writing][0].name == "__getitem__"
    assert "in-place write" in getitem[writing][1].events and "in-place write" not in getitem[copying][1].events


BOUND_WRITER = (
    "import torch\n\n\nclass Frames:\n    def __init__(self, frames):\n        self.frames = frames\n\n"
    "    def _doubled(self, frame):\n        {body}\n\n"
    "    def __getitem__(self, i):\n        frame = torch.from_numpy(self.frames[i])\n"
    "        double = self._doubled\n        return double(frame)\n"
)


def test_a_method_that_writes_read_as_a_value_opens_the_bodies_calling_values():
    """``double = self._doubled`` then ``double(frame)``: the call runs the method on its object,
    which writes the dataset's arrays (TEN202); a method that copies opens nothing."""
    writing = BOUND_WRITER.format(body="return frame.mul_(2.0)")
    assert [(f.line, f.col, f.code) for f in lint_source(writing)] == [(12, 16, "TEN202")]
    assert forced_open(writing) == [(12, 16, "TEN202")]
    copying = BOUND_WRITER.format(body="return frame * 2.0")
    assert lint_source(copying) == [] and forced_open(copying) == []


# --- generated programs ---------------------------------------------------------------------

NAMES = ("w", "x", "backup", "prev_w", "loss", "val_loss", "total", "host")
STATEMENTS = (
    "{a} = {b}.detach()", "{a} = {b}.clone()", "{a} = {b}.view(-1)", "{a} = {b}.numpy()",
    "{a} = torch.from_numpy({b})", "{a} = {b}.cpu()", "{a} = {b}.to('cpu', non_blocking=True)",
    "{a} = {b}.to('cuda', non_blocking=True)", "{a} = {b}.pin_memory()", "{a} = torch.zeros(3, pin_memory=True)",
    "{a} = torch.tensor({b})", "{a} = {b}.new_tensor({b})", "{a} = torch.tensor([{b}, {b}])",
    "{a} = {b}.clone().detach()", "{a} = {b}", "{a} = copy.copy({b})", "{a} = copy.deepcopy({b})",
    "{a} = {b}.data", "{a} = {b}.grad", "{a} = model.state_dict()", "{a} = {b} * 2", "{a} = model({b})",
    "{a} = F.mse_loss(model({b}), {b})", "{a} = torch.ones(3, requires_grad=True)", "{a}.add_(1)",
    "{a}[0] = 1", "{a} += {b}", "{a} = {a} + {b}", "{a}.append({b})", "{a}.copy_({b}, non_blocking=True)",
    "{a}.backward()", "opt.step()", "model.load_state_dict({a})", "train_one_epoch(model)",
    "np.copyto({a}, {b})", "scale({a})", "print({a}.item())", "{a} = int({b}[0])", "torch.cuda.synchronize()",
    "same = {a} is {b}", "same = id({a}) == id({b})", "key = id({a}.detach())", "{a}.data.mul_(2)",
    "{a}.grad.zero_()", "{a} = self.buf", "self.buf.copy_({a})", "self.buf = {a}", "{a} = [{b}, {b}]",
    "{a} = {b}[1:]", "{a} = {b}.reshape(-1)", "{a} = {b}.double()", "{a} = torch.as_tensor({b})",
    # a few shapes of known hazards, so that most rules get to decide something
    "for batch in x:\n    {a} = F.mse_loss(model(batch), batch)\n    {a}.backward()\n    {b} += {a}",
    "{a} = copy.deepcopy(model({b}))", "{a} = model({b})\nprint({a}.grad)", "{a} = torch.empty_like({b}).copy_({b})",
    "{a} = torch.FloatTensor({b})", "{a} = copy.copy(w)\nw.add_(1)\nprint({a})",
    "{a} = w.view(-1)\nw.add_(1)\nprint({a})",
    "{a} = w.detach()\nw.add_(1)\nprint({a})",
    "{a} = torch.from_numpy(x)\nx[0] = 1",
    "{a} = torch.zeros(3, pin_memory=True)\n{b} = {a}.to('cuda', non_blocking=True)\n{a}.add_(1)",
)
IMPORTS = ("import numpy as np", "import copy")
SIGNATURES = ("(w: torch.Tensor, x: torch.Tensor, model: nn.Module, opt)", "(w, x, model, opt)",
              "(x: np.ndarray, model: nn.Module)", "(self, x: torch.Tensor, model: nn.Module, opt)")


@st.composite
def statements(draw, depth: int = 0):
    """A list of statements, maybe nested in a loop, a branch or ``torch.no_grad()``."""
    lines = []
    for _ in range(draw(st.integers(2, 7))):
        if depth < 2 and draw(st.integers(0, 4)) == 0:
            header = draw(st.sampled_from(("for _ in range(3):", "if x is not None:", "with torch.no_grad():",
                                           "while True:")))
            body = draw(statements(depth + 1))
            lines.append(header)
            lines.extend("    " + line for line in body)
            if header == "while True:":
                lines.append("    break")
        else:
            template = draw(st.sampled_from(STATEMENTS))
            lines.extend(template.format(a=draw(st.sampled_from(NAMES)), b=draw(st.sampled_from(NAMES))).split("\n"))
    if draw(st.booleans()):
        lines.append(f"return {draw(st.sampled_from(NAMES))}")
    return lines


@st.composite
def programs(draw):
    imports = ["import torch", "import torch.nn.functional as F", "from torch import nn"]
    imports += draw(st.lists(st.sampled_from(IMPORTS), unique=True))
    parts = ["\n".join(imports)]
    for index in range(draw(st.integers(1, 3))):
        body = "\n".join("    " + line for line in draw(statements()))
        kind = draw(st.sampled_from(("function", "method", "helper")))
        if kind == "helper":
            parts.append("def scale(t):\n    t.mul_(2)")
        elif kind == "method":
            init = "    def __init__(self):\n        self.buf = torch.zeros(3, pin_memory=True)\n"
            method = body.replace("\n", "\n    ")
            parts.append(f"class Holder{index}:\n{init}\n    def run{SIGNATURES[3]}:\n    {method}")
        else:
            parts.append(f"def step{index}{draw(st.sampled_from(SIGNATURES[:3]))}:\n{body}")
    return "\n\n\n".join(parts) + "\n"


@pytest.mark.parametrize("examples, codes", [(30, 10), pytest.param(600, 18, marks=pytest.mark.slow)])
def test_on_generated_programs_the_gate_keeps_every_finding(examples, codes):
    """Every finding of the queries with the gate forced open lies where the scan saw the
    rule's subscription (the file and the body the engine decides on), and the gated, sparse
    engine finds exactly those. Prints how far the programs reached."""
    reached = Counter()

    @settings(max_examples=examples, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
    @given(programs())
    def check(source):
        whole = forced_open(source)
        in_gated_body(source, whole)
        gated = sorted((f.line, f.col, f.code) for f in lint_source(source))
        assert gated == whole, source
        reached["programs"] += 1
        reached["with findings"] += bool(whole)
        reached.update(code for _line, _col, code in whole)
        reached.update(scan(ast.parse(source)).events)

    check()
    print(dict(reached))
    assert reached["with findings"] >= reached["programs"] / 3, reached
    assert all(reached[event] for event in EVENTS), reached  # every event happens at least once
    assert len({code for code in reached if code.startswith("TEN")}) >= codes, reached
