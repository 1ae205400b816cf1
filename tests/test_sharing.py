"""TEN2xx queries on whole small programs (what the one-file fixtures cannot isolate: there any
function training a caller's model writes every caller's parameters), and the torch behaviour
behind them."""

import pytest

from flake8_tensorcopy.engine import lint_source
from flake8_tensorcopy.knowledge.conventions import snapshot_named

torch = pytest.importorskip("torch")

KEEPER = '''import torch
from torch import nn


class Keeper:
    def __init__(self, net: nn.Module):
        self.net = net
        self.kept = {}

    def keep(self):
        for name, p in self.net.named_parameters():
            self.kept[name] = p.{alias}

    def moved(self) -> float:
        return sum(float((p - self.kept[name]).abs().sum()) for name, p in self.net.named_parameters())


'''

STEPS = {
    "a parameter nobody passes": '''def train(net: nn.Module, opt, batches, keeper: Keeper) -> float:
    keeper.keep()
    for inputs, targets in batches:
        loss = (net(inputs) - targets).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    return keeper.moved()
''',
    "self.opt of unknown origin": '''class Trainer:
    def __init__(self, net: nn.Module, opt, keeper: Keeper):
        self.net, self.opt, self.keeper = net, opt, keeper

    def run(self, batches) -> float:
        self.keeper.keep()
        for inputs, targets in batches:
            self.opt.zero_grad()
            self.net(inputs).sub(targets).abs().mean().backward()
            self.opt.step()
        return self.keeper.moved()
''',
}

CLEAN_STEPS = {
    "only a scheduler steps": '''def train(net: nn.Module, opt, batches, keeper: Keeper) -> float:
    keeper.keep()
    schedule = torch.optim.lr_scheduler.StepLR(opt, step_size=2)
    for inputs, targets in batches:
        (net(inputs) - targets).pow(2).mean().backward()
        schedule.step()
    return keeper.moved()
''',
    "no backward reaches the step": '''def train(net: nn.Module, opt, batches, keeper: Keeper) -> float:
    keeper.keep()
    for inputs, _ in batches:
        net(inputs)
        opt.step()
    return keeper.moved()
''',
    "the backward comes after the step": '''def train(net: nn.Module, opt, inputs, keeper: Keeper) -> float:
    keeper.keep()
    opt.step()
    net(inputs).sum().backward()
    return keeper.moved()
''',
}


@pytest.mark.parametrize("step", STEPS.values(), ids=list(STEPS))
def test_an_unseen_optimizer_steps_the_parameters_its_backward_reached(step):
    source = KEEPER.replace("{alias}", "detach()") + step
    assert [(finding.code, finding.line) for finding in lint_source(source)] == [("TEN203", 12)]
    assert lint_source(KEEPER.replace("{alias}", "detach().clone()") + step) == []


@pytest.mark.parametrize("step", CLEAN_STEPS.values(), ids=list(CLEAN_STEPS))
def test_no_optimizer_step_after_a_backward_writes_nothing(step):
    assert lint_source(KEEPER.replace("{alias}", "detach()") + step) == []


def test_an_optimizer_step_moves_what_a_detached_alias_of_a_parameter_sees():
    net = torch.nn.Linear(3, 1)
    kept = net.weight.detach()
    before = net.weight.detach().clone()
    opt = torch.optim.SGD(net.parameters(), lr=0.5)
    net(torch.ones(2, 3)).sum().backward()
    with pytest.warns(UserWarning):  # a scheduler alone changes no weight (torch warns of the order)
        torch.optim.lr_scheduler.StepLR(opt, step_size=1).step()
    assert torch.equal(kept, before)
    opt.step()
    assert torch.equal(kept, net.weight) and not torch.equal(kept, before)


ORIGIN = '''import torch
from torch import nn


class Origin:
    def __init__(self, model: nn.Module):
        self.model = model
        self.start = {{name: p.{alias} for name, p in model.named_parameters()}}

    def travelled(self) -> float:
        return sum(float((p.detach() - self.start[name]).norm()) for name, p in self.model.named_parameters())

    def size(self) -> int:
        return sum(p.numel() for p in self.model.parameters())

    def __call__(self, model: nn.Module) -> float:
        return sum(float((p.detach() - self.start[name]).norm()) for name, p in model.named_parameters())

    def norm(self) -> float:
        total = 0.0
        for p in self.model.parameters():
            now = p.detach()
            total += float(now.norm())
        return total


def train(steps: int):
    model = nn.Linear(4, 2)
{before}    opt = torch.optim.SGD(model.parameters(), lr=0.5)
    for _ in range(steps):
        opt.zero_grad()
        model(torch.randn(8, 4)).pow(2).mean().backward()
        opt.step()
{after}'''


@pytest.mark.parametrize("alias, before, after, expected", [
    ("detach()", "    origin = Origin(model)\n", "    return origin.travelled()\n",
     [("TEN203", 8, "'p' is written in place on line 34 and 'origin.travelled()' reads it on line 35")]),
    ("detach()", "    origin = Origin(model)\n", "    return origin(model)\n",  # its __call__
     [("TEN203", 8, "'p' is written in place on line 34 and 'origin()' reads it on line 35")]),
    ("detach().clone()", "    origin = Origin(model)\n", "    return origin.travelled()\n", []),
    ("detach()", "    origin = Origin(model)\n", "    return origin.size()\n", []),  # reads no value it kept
    ("detach()", "    origin = Origin(model)\n", "    return origin.norm()\n", []),  # an alias each call makes anew
    ("detach()", "", "    return Origin(model).travelled()\n", []),  # made after the steps
])
def test_an_alias_a_construction_keeps_is_read_by_a_later_method_call(alias, before, after, expected):
    """``Origin(model)`` keeps detached aliases of the model's parameters; the steps write them in
    the function that built it, and ``origin.travelled()`` reads what it kept."""
    source = ORIGIN.format(alias=alias, before=before, after=after)
    found = [(finding.code, finding.line, finding.message) for finding in lint_source(source)]
    assert [(code, line) for code, line, _ in found] == [(code, line) for code, line, _ in expected]
    assert all(fragment in message for (_, _, message), (_, _, fragment) in zip(found, expected))
    namespace = {}
    exec(compile(source, "origin.py", "exec"), namespace)
    if before and ("travelled" in after or "origin(model)" in after):  # built before the steps: what it kept
        # moved with them where it is an alias
        assert (namespace["train"](3) == 0.0) == (alias == "detach()")


def test_an_alias_a_method_makes_anew_at_each_call_is_no_alias_a_later_call_reads():
    """``now = p.detach()`` read at once in a method called at each step: each call makes its own."""
    source = ORIGIN.format(alias="detach().clone()", before="    origin = Origin(model)\n", after="").replace(
        "    for _ in range(steps):\n", "    for _ in range(steps):\n        origin.norm()\n") + "    return origin.norm()\n"
    assert lint_source(source) == []
    namespace = {}
    exec(compile(source, "origin.py", "exec"), namespace)
    assert namespace["train"](2) > 0.0


ANCHOR = '''import torch
from torch import nn


class Anchor:
    def __init__(self, model: nn.Module):
        self.start = {{name: p.{alias} for name, p in model.named_parameters()}}

    def __call__(self, model: nn.Module):
        return sum(((p - self.start[name]) ** 2).sum() for name, p in model.named_parameters())


def train(steps: int):
    model = nn.Linear(4, 2)
    anchor = Anchor(model)
    opt = torch.optim.SGD(model.parameters(), lr=0.5)
    penalties = []
    for _ in range(steps):
        loss = model(torch.randn(8, 4)).pow(2).mean() + anchor(model)
        opt.zero_grad()
        loss.backward()
        opt.step()
        penalties.append(float(anchor(model)))
    return penalties
'''


@pytest.mark.parametrize("alias", ["detach()", "detach().clone()"])
def test_an_object_that_keeps_only_aliases_of_what_it_was_handed_is_read_when_called(alias):
    """``Anchor(model)`` keeps no ``self.model``, only ``p.detach()`` of the model's parameters; calling
    the object after the steps reads them (an L2-SP penalty that stays zero)."""
    source = ANCHOR.format(alias=alias)
    found = [(finding.code, finding.line) for finding in lint_source(source)]
    assert found == ([("TEN203", 7)] if alias == "detach()" else [])
    namespace = {}
    exec(compile(source, "anchor.py", "exec"), namespace)
    assert (namespace["train"](3) == [0.0, 0.0, 0.0]) == (alias == "detach()")


def test_an_object_built_again_before_each_read_keeps_the_alias_anew():
    """``origin = Origin(model); origin.travelled()`` at the top of each step: the read follows a new
    construction, never a write of what that object kept (review s20 F12)."""
    source = ORIGIN.format(alias="detach()", before="    seen = []\n", after="    return seen\n").replace(
        "    for _ in range(steps):\n",
        "    for _ in range(steps):\n        origin = Origin(model)\n        seen.append(origin.travelled())\n")
    assert lint_source(source) == []
    namespace = {}
    exec(compile(source, "origin.py", "exec"), namespace)
    assert namespace["train"](3) == [0.0, 0.0, 0.0]  # each read right after its construction


HELPER = '''import copy
import torch


def nudge_each(score, t: torch.Tensor, step: float = 0.1):
    out = []
    for i in range(t.numel()):
        bumped = {bumped}
        bumped.view(-1)[i] += step
        out.append(score(bumped))
    return out


def compare(score, t: torch.Tensor):
    return nudge_each(score, t.detach())
'''


def test_a_write_through_a_reported_alias_is_that_finding_only():
    assert [(finding.code, finding.line) for finding in lint_source(HELPER.replace("{bumped}", "copy.copy(t)"))] == [
        ("TEN207", 8)]
    # written through no alias of its own, the helper's write is the caller's detach() finding
    assert [(finding.code, finding.line) for finding in lint_source(HELPER.replace(
        "bumped = {bumped}\n        bumped.view", "t.view").replace("score(bumped)", "score(t)"))] == [
        ("TEN203", 14)]


TEMPORARY = '''import torch


def rescale(t: torch.Tensor, factor: float):
    t.mul_(factor)
    return t.sum()


def shrink(w: torch.Tensor):
    {call}
    return w
'''


def test_an_alias_made_as_a_discarded_calls_argument_is_the_helpers_receiver():
    # the helper's write through an alias no place holds is what the call is for, w is meant to change
    assert lint_source(TEMPORARY.format(call="rescale(w.detach(), 0.5)")) == []
    # the helper's result kept: the call was made for it, the write through the alias is a side effect
    assert [(finding.code, finding.line) for finding in lint_source(TEMPORARY.format(
        call="total = rescale(w.detach(), 0.5)"))] == [("TEN203", 10)]


# ----- ported from test_aliases.py (the old analysis's facts for TEN204, TEN208): what a user sees

def _codes(source: str):
    return [(finding.line, finding.code) for finding in lint_source(source)]


def test_an_alias_made_on_one_branch_only_is_still_reported():
    source = ("import torch\ndef f(x: torch.Tensor, c: bool):\n    if c:\n        y = x.view(-1)\n    else:\n"
              "        y = x.clone()\n    x.add_(1)\n    return y\n")
    assert _codes(source) == [(4, "TEN204")]


def test_an_optimizer_step_and_a_training_call_write_the_snapshot_of_the_model_they_train():
    step = ("import torch\ndef f(batches):\n    m = torch.nn.Linear(2, 2)\n    opt = torch.optim.SGD(m.parameters(), lr=0.1)\n"
            "    best = m.state_dict()\n    opt.step()\n    return best\n")
    [finding] = lint_source(step)
    assert (finding.line, finding.code) == (5, "TEN208") and "written in place by opt.step() on line 6" in finding.message
    trained = ("import torch\ndef f(batches):\n    m = torch.nn.Linear(2, 2)\n    best = m.state_dict()\n"
               "    train_one_epoch(m, batches)\n    return best\n")
    assert _codes(trained) == [(4, "TEN208")]


def test_a_snapshot_loaded_back_into_its_own_model_on_a_later_call_restores_the_current_weights():
    """No training in sight: whatever trains the model between the calls moves the snapshot too."""
    source = '''import torch
from torch import nn


class BestKeeper:
    def __init__(self, net: nn.Module):
        self.net = net
        self.best = None

    def improved(self):
        self.best = self.net.state_dict()

    def restore(self):
        self.net.load_state_dict(self.best)
'''
    [finding] = lint_source(source)
    assert (finding.line, finding.code) == (11, "TEN208")
    assert "so loading it back on line 14 restores the current weights, not the saved ones" in finding.message
    net = torch.nn.Linear(2, 2)
    best = net.state_dict()
    with torch.no_grad():
        net.weight.add_(1.0)  # training between the calls
    assert torch.equal(best["weight"], net.weight)  # the snapshot moved with it


# ----- moved from the old analysis's tests: what a user sees of an alias and its writes

_PRELUDE = "import copy\nimport numpy as np\nimport torch\nimport torch.nn.functional as F\nx = torch.ones(3)\n"


@pytest.mark.parametrize("statement, expected", [("a = a + 1", []), ("a += 1", [(3, "TEN201")])])
def test_rebinding_is_not_a_write(statement, expected, lint):
    """``a = a + 1`` makes a new array where ``a += 1`` writes the tensor's memory."""
    source = f"import torch\ndef f(t: torch.Tensor):\n    a = t.numpy()\n    {statement}\n    return t.sum()\n"
    assert lint(source) == expected


def test_later_loop_iteration_sees_the_write(lint):
    source = _PRELUDE + "prev = x.detach()\nfor i in range(3):\n    print(prev)\n    x.add_(1)\n"
    assert lint(source) == [(6, "TEN203")]


def test_alias_made_in_a_loop_is_a_new_one_each_iteration(lint):
    source = _PRELUDE + "for i in range(3):\n    x.add_(1)\n    cur = x.detach()\n    print(cur)\n"
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
    source = _PRELUDE + "def f(y: torch.Tensor):\n    out = torch.zeros(4, 6)\n    left = out[:, :3]\n" \
        "    left.copy_(y)\n    return out\n"
    assert lint(source) == []


@pytest.mark.parametrize(
    "name, expected",
    [("best_state", True), ("w_prev", True), ("origX", True), ("initial", True), ("backup2", True),
     ("weights", False), ("prevent", False), ("boldness", False), ("self.best", True), ("current", False)],
)
def test_snapshot_names(name, expected):
    assert snapshot_named(name) is expected


def test_a_slice_of_a_value_of_unknown_kind_is_a_part_of_it_not_an_item():
    """``flat[:n]`` of what an unknown call returns (or None): a part where it is a tensor, the
    two sides of the split disjoint memory, never one item of a container."""
    import ast

    from flake8_tensorcopy.model import build_model

    source = (
        "def received(channel):\n"
        "    return channel.receive() if channel is not None else None\n"
        "\n"
        "\n"
        "def halves(channel, n):\n"
        "    flat = received(channel)\n"
        "    head = flat[:n]\n"
        "    tail = flat[n:]\n"
        "    return head, tail\n"
    )
    model = build_model(ast.parse(source))
    parts = {event.line: model.view_parts.get(event.detail["made"])
             for event in model.events.find("alias") if event.detail["operation"] == "partial_view"}
    assert parts == {7: frozenset({"<$n"}), 8: frozenset({">=$n"})}
    flat = torch.arange(6.0)
    head, tail = flat[:3], flat[3:]
    head += 1.0
    assert tail.tolist() == [3.0, 4.0, 5.0] and flat.tolist()[:3] == [1.0, 2.0, 3.0]
