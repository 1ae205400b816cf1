"""The file's own call sites as evidence about an annotated parameter (model/disputes.py, the callers' join): a
caller passing what is not a tensor disputes the annotation, for every rule; callers passing
tensors or unknown values, and a use only a tensor survives, leave it a tensor."""

import pytest

from flake8_tensorcopy.engine import lint_source

CALLER = """import torch
from typing import List, Optional, Sequence, Union

CONSTANT = [0.5, 0.5]


def scale(x: torch.Tensor, factor: torch.Tensor):
    return x * torch.tensor(factor)


def caller(x: torch.Tensor, cfg, hparams, options, gain: float, weights: List[float], maybe: Optional[float],
           either: Union[torch.Tensor, float], spelled: "Sequence[float]", union: float | None, v, *args):
    values = [1.0, 2.0]
    mixed = [1.0] if v else torch.ones(2)
    for item in weights:
        pass
    return scale(x, {argument})
"""
FLAGGED = [(8, "TEN101")]


def codes(source: str):
    return sorted((finding.line, finding.code) for finding in lint_source(source))


@pytest.mark.parametrize("argument", [
    "[0.1, 0.2]", "(0.1, 0.2)", "0.5", "-1", "'0.5'", "[w for w in weights]", "CONSTANT", "values",
    "cfg.factor", "self_config.config.factor", "hparams['factor']", "cfg.scales[0]",
    "gain", "weights", "maybe", "either", "spelled", "union", "len(weights)", "x.tolist()", "x.sum().item()",
    "x.numpy()", "gain * 2", "factor=[1.0]",
])
def test_a_caller_passing_what_is_not_a_tensor_disputes_the_annotation(argument):
    assert codes(CALLER.format(argument=argument)) == []


@pytest.mark.parametrize("argument", [
    "x", "x.mean()", "torch.ones(2)", "v", "None", "options.factor", "cfg", "args[0]", "mixed", "item",
    "x.numpy(force=True) if v else x", "*args", "**{'factor': x}", "factor=x",
])
def test_tensors_and_unknown_values_dispute_nothing(argument):
    assert codes(CALLER.format(argument=argument)) == FLAGGED


def test_one_disputing_call_site_among_tensor_ones_is_enough():
    source = CALLER.format(argument="x") + "\n\nscale(torch.ones(2), [2.0])\n"
    assert codes(source) == []


def test_an_uncalled_function_keeps_its_annotation():
    uncalled = CALLER.format(argument="[0.1]").replace("return scale(x, [0.1])", "return x")
    assert codes(uncalled) == FLAGGED


METHODS = """import torch
from torch import nn


class Scaler(nn.Module):
    def __init__(self, config, mean: torch.Tensor):
        super().__init__()
        self.config = config
        self.mean = torch.tensor(mean)

    def shift(self, x: torch.Tensor, offset: torch.Tensor):
        return x + torch.tensor(offset)

    @staticmethod
    def spread(x: torch.Tensor, std: torch.Tensor):
        return x * torch.tensor(std)

    @classmethod
    def make(cls, factor: torch.Tensor):
        return torch.tensor(factor)

    def forward(self, x: torch.Tensor):
        return {call}
"""


@pytest.mark.parametrize("call, silenced_line", [
    ("self.shift(x, self.config.offset)", 12),
    ("self.shift(x, offset=[1.0])", 12),
    ("self.spread(x, self.config.std)", 16),
    ("Scaler.spread(x, [2.0])", 16),
    ("Scaler.shift(self, x, [1.0])", 12),
    ("self.make(0.5)", 20),
    ("Scaler.make(0.5)", 20),
    ("Scaler(self.config, self.config.mean)", 9),
])
def test_methods_are_matched_through_self_the_class_and_its_constructor(call, silenced_line):
    everything = [(9, "TEN101"), (12, "TEN101"), (16, "TEN101"), (20, "TEN101")]
    assert codes(METHODS.format(call=call)) == [item for item in everything if item[0] != silenced_line]


@pytest.mark.parametrize("call", ["self.shift(x, x.mean())", "Scaler.shift(self, [1.0], x)", "other.shift(x, [1.0])"])
def test_a_bound_receiver_is_not_an_argument_and_other_objects_are_not_matched(call):
    """``Scaler.shift(self, [1.0], x)`` passes the list as ``x``, not as ``offset``."""
    assert codes(METHODS.format(call=call)) == [(9, "TEN101"), (12, "TEN101"), (16, "TEN101"), (20, "TEN101")]


def test_the_same_method_name_in_another_class_is_not_disputed():
    source = METHODS.format(call="x") + """

class Other:
    def shift(self, x: torch.Tensor, offset: torch.Tensor):
        return x + torch.tensor(offset)

    def run(self, x: torch.Tensor):
        return self.shift(x, [1.0])
"""
    assert codes(source) == [(9, "TEN101"), (12, "TEN101"), (16, "TEN101"), (20, "TEN101")]


def test_a_nested_function_of_the_same_name_is_not_the_one_called():
    source = """import torch


def outer(x: torch.Tensor):
    def scale(factor: torch.Tensor):
        return torch.tensor(factor)
    return scale(x)


def scale(factor: torch.Tensor):
    return torch.tensor(factor)


scale([1.0])
"""
    assert codes(source) == [(6, "TEN101")]


@pytest.mark.parametrize("use, expected", [
    ("factor.backward()", FLAGGED),
    ("factor.detach()", FLAGGED),
    ("factor.requires_grad_(False)", FLAGGED),
    ("factor.sum()", []),  # a list has no sum(), but an ndarray has: not a tensor-only use
    ("factor = torch.as_tensor(factor); factor.detach()", []),  # the use is of the rebound value
])
def test_a_use_only_a_tensor_survives_settles_the_dispute(use, expected):
    source = CALLER.format(argument="[0.1]").replace(
        "    return x * torch.tensor(factor)\n", f"    y = x * torch.tensor(factor)\n    {use}\n    return y\n")
    assert codes(source) == expected


def test_other_rules_read_the_same_evidence():
    """TEN102 asks the same question of its argument: is it a tensor?"""
    source = """import torch


def rescale(counts: torch.Tensor, weights: torch.Tensor):
    return counts.new_tensor(weights)


def caller(counts: torch.Tensor):
    return rescale(counts, {argument})
"""
    assert codes(source.format(argument="counts.float()")) == [(5, "TEN102")]
    assert codes(source.format(argument="[0.5, 2.0]")) == []


def test_the_flagged_finding_still_says_it_rests_on_the_annotation():
    (finding,) = lint_source(CALLER.format(argument="x.mean()"))
    assert finding.message.endswith("('factor' is a tensor by weak evidence, annotated as a tensor: the fix is unsafe)")


def test_a_caller_passing_a_module_does_not_dispute_a_module_annotation():
    """Disputes concern tensor annotations: a module passed where ``nn.Module`` is annotated
    agrees with it, so a parameter another caller passes an unknown value keeps the annotation
    (its ``.to()`` returns the module itself, no tensor alias)."""
    import ast
    from flake8_tensorcopy.model import build_model

    source = (
        "import torch\nfrom torch import nn\n\n\n"
        "def place(model: nn.Module, device):\n"
        "    moved = model.to(device)\n"
        "    return moved\n\n\n"
        "def both(obj, device):\n"
        "    return place(nn.Linear(2, 2), device), place(obj, device)\n"
    )
    model = build_model(ast.parse(source))
    assert model.value_at(7, "model").kinds == {"module"}
    assert model.value_at(7, "moved").kinds == {"module"}
