"""The flow pass: states at ``break`` join the loop exit (past ``else``), states at ``continue``
join the loop head; callees resolve through imports, not spellings."""

import pytest

from flake8_tensorcopy.engine import lint_source

DETACH_IN_LOOP = """import torch


def f(w: torch.Tensor, items):
    {loop}
        {body}
    {after}
    w.add_(1.0)
    return y
"""


def codes(source: str):
    return sorted((finding.line, finding.code) for finding in lint_source(source))


@pytest.mark.parametrize("loop, body", [
    ("for _ in items:", "y = w.detach(); break"),
    ("for _ in items:", "y = w.detach()"),
    ("while True:", "y = w.detach(); break"),
    ("for _ in items:", "y = w.detach()\n        if y.sum() > 0:\n            break\n        y = w.clone()"),
    ("for _ in items:", "y = w.detach()\n        if y.sum() > 0:\n            continue\n        y = w.clone()"),
])
def test_alias_reaching_the_loop_exit_is_reported(loop, body):
    assert codes(DETACH_IN_LOOP.format(loop=loop, body=body, after="")) == [(6, "TEN203")]


def test_a_break_skips_the_else_clause():
    broken = DETACH_IN_LOOP.format(loop="for _ in items:", body="y = w.detach(); break",
                                   after="else:\n        y = w.clone()")
    assert codes(broken) == [(6, "TEN203")]
    rebound_after_normal_exit = DETACH_IN_LOOP.format(loop="for _ in items:", body="y = w.detach()",
                                                      after="else:\n        y = w.clone()")
    assert codes(rebound_after_normal_exit) == []


def test_paths_that_rebind_before_break_are_clean():
    body = "y = w.detach()\n        y = w.clone()\n        break"
    assert codes(DETACH_IN_LOOP.format(loop="for _ in items:", body=body, after="")) == []


def test_break_of_an_inner_loop_stays_in_it():
    body = "for _ in items:\n            y = w.detach()\n            break\n        y = w.clone()"
    assert codes(DETACH_IN_LOOP.format(loop="for _ in items:", body=body, after="")) == []


PENALTY = """import torch
{imports}


def penalty(model: torch.nn.Module, batches, opt):
    total = 0
    for x in batches:
        loss = model(x).sum()
        total += loss
        {call}(total, list(model.parameters()))
        opt.step()
    return total.item()
"""


@pytest.mark.parametrize("imports, call", [
    ("", "torch.autograd.grad"),
    ("from torch import autograd", "autograd.grad"),
    ("from torch import autograd as ag", "ag.grad"),
    ("import torch.autograd as tag", "tag.backward"),
    ("from torch.autograd import grad", "grad"),
    ("from torch.autograd import grad as g", "g"),
])
def test_autograd_through_the_accumulator_resolves_by_import(imports, call):
    assert codes(PENALTY.format(imports=imports, call=call)) == []


def test_a_local_function_named_like_autograd_is_not_autograd():
    source = PENALTY.format(imports="", call="grad").replace("def penalty", "def grad(*a):\n    pass\n\n\ndef penalty")
    assert codes(source) == [(13, "TEN306")]


def messages(source: str):
    return [finding.message for finding in lint_source(source)]


def test_the_rule_words_a_read_in_a_later_iteration():
    source = """import torch


def drift(w: torch.Tensor, steps: int):
    ref = w.detach()
    for _ in range(steps):
        print(ref)
        w.add_(0.1)
"""
    assert messages(source) == [
        "'ref' shares memory with 'w' (detach() does not copy): 'w' is written in place on line 8 and "
        "'ref' read on line 7 in a later iteration; use w.detach().clone()"
    ]


@pytest.mark.parametrize("target, held", [
    ("prev", "is kept as a snapshot (its name says so)"),
    ("self.last", "outlives the function (an attribute)"),
    ("box.last", "outlives the function (an attribute of a parameter)"),
])
def test_the_rule_words_who_holds_the_alias(target, held):
    source = f"""import torch


class Keeper:
    def keep(self, box, w: torch.Tensor):
        {target} = w.detach()
        w.add_(0.1)
"""
    assert messages(source) == [
        f"'{target}' shares memory with 'w' (detach() does not copy): 'w' is written in place on line 7 and "
        f"'{target}' {held}; use w.detach().clone()"
    ]


def test_children_of_is_libcsts_children_on_every_node_of_the_fixtures(monkeypatch):
    """``children_of`` reads fields in the order LibCST visits them, learnt per node type from
    the first node met; a field LibCST visits only when set (an f-string's format spec) must
    not go missing when the first node of its type had it unset."""
    import libcst

    from conftest import FIXTURES
    from flake8_tensorcopy import syntax

    monkeypatch.setattr(syntax, "_CHILD_FIELDS", {})  # learnt afresh, from these nodes first
    sources = ['x = f"{a}"\n', 'y = f"{b:>{width}}"\nz = f"{c!r:^8}"\n']
    sources += [(FIXTURES / f"{code}.py").read_text(encoding="utf-8") for code in ("TEN203", "TEN306", "TEN401")]
    checked = set()
    for source in sources:
        stack = [libcst.parse_module(source)]
        while stack:
            node = stack.pop()
            expected = node.children
            assert [id(child) for child in syntax.children_of(node)] == [id(child) for child in expected], node
            checked.add(type(node).__name__)
            stack.extend(expected)
    assert {"FormattedStringExpression", "Call", "FunctionDef", "For", "If", "ListComp"} <= checked
