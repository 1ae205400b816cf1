"""The issue's examples as facts of the model, with variants a user would write and clean
look-alikes: each fact follows from value properties, never from one spelling."""

import ast
import textwrap

from flake8_tensorcopy.model import build_model


def solve(source: str):
    return build_model(ast.parse(textwrap.dedent(source)))


def call_at(model, line: int, callee: str):
    [event] = [event for event in model.events.find("call", line=line) if event.detail["callee"] == callee]
    return event


# ----- a loop carries a graph tensor into the next iteration (loop fixpoint)

def test_deepcopy_in_a_loop_sees_the_previous_iterations_graph_tensor():
    model = solve("""
        import copy, torch
        model = torch.nn.Linear(4, 4)
        out = None
        for x in [torch.ones(4)]:
            keep = copy.deepcopy(out)
            out = model(x)
    """)
    [argument] = call_at(model, 6, "copy.deepcopy").detail["arguments"]
    assert argument.graph and argument.is_tensor
    assert model.value_at(6, "out").graph


def test_while_loop_with_a_module_parameter_and_another_name():
    model = solve("""
        import copy
        from torch import nn
        def train(net, batch):
            best = None
            while batch:
                snapshot = copy.deepcopy(best)
                best = net(batch)
        train(nn.Linear(2, 2), 1)
    """)
    # ``net`` is a module because the module's one call site passes one
    [argument] = call_at(model, 7, "copy.deepcopy").detail["arguments"]
    assert argument.graph


def test_deepcopy_before_the_loop_assigns_sees_no_graph_tensor():
    model = solve("""
        import copy, torch
        model = torch.nn.Linear(4, 4)
        out = torch.zeros(4)
        for x in [torch.ones(4)]:
            keep = copy.deepcopy(out)
            out = model(x).detach()
    """)
    [argument] = call_at(model, 6, "copy.deepcopy").detail["arguments"]
    assert argument.is_tensor and not argument.graph


# ----- summaries over symbolic parameters

def test_a_function_calling_its_parameter_returns_a_graph_tensor_for_a_module_argument():
    model = solve("""
        import copy, torch
        def run(m, x):
            return m(x)
        model = torch.nn.Linear(2, 2)
        x = torch.ones(2)
        snap = copy.deepcopy(run(model, x))
    """)
    [argument] = call_at(model, 7, "copy.deepcopy").detail["arguments"]
    assert argument.graph and argument.is_tensor


def test_a_method_calling_its_parameter_with_keywords():
    model = solve("""
        import copy, torch
        class Runner:
            def run(self, x, m):
                y = m(x)
                return y
        model = torch.nn.Linear(2, 2)
        snap = copy.deepcopy(Runner().run(m=model, x=torch.ones(2)))
    """)
    [argument] = call_at(model, 8, "copy.deepcopy").detail["arguments"]
    assert argument.graph


def test_calling_a_parameter_with_a_plain_function_gives_no_graph_tensor():
    model = solve("""
        import copy, torch
        def run(m, x):
            return m(x)
        snap = copy.deepcopy(run(len, [1]))
    """)
    [argument] = call_at(model, 5, "copy.deepcopy").detail["arguments"]
    assert not argument.graph


# ----- a returned tuple keeps its items' storages

def test_an_item_of_a_returned_tuple_shares_the_argument_storage_and_is_read_after_a_write():
    model = solve("""
        import torch
        def snap(t):
            return t.detach(), 1
        w = torch.ones(2, requires_grad=True)
        b, _ = snap(w)
        w.add_(1)
        use(b)
    """)
    w = model.value_at(6, "w").storages
    assert model.value_at(7, "b").storages == w
    [(write, read)] = [(a, b) for a, b in model.events.reads_after_write(next(iter(w))) if b.place == "b"]
    assert (write.line, read.line) == (7, 8)


def test_a_list_returned_by_a_method_and_written_by_an_augmented_assignment():
    model = solve("""
        import torch
        class Saver:
            def keep(self, t):
                return [t.view(-1)]
        w = torch.ones(2)
        kept = Saver().keep(w)
        w += 1
        print(kept[0])
    """)
    storage = next(iter(model.value_at(7, "w").storages))
    reads = [(write.line, read.line) for write, read in model.events.reads_after_write(storage)]
    assert (8, 9) in reads


def test_a_cloned_item_has_its_own_storage():
    model = solve("""
        import torch
        def snap(t):
            return t.detach().clone(), 1
        w = torch.ones(2, requires_grad=True)
        b, _ = snap(w)
        w.add_(1)
        use(b)
    """)
    assert not model.value_at(7, "b").storages & model.value_at(7, "w").storages


# ----- container items keep their storage

def test_a_dict_item_shares_the_storage_it_was_built_from():
    model = solve("""
        import torch
        w = torch.ones(2, requires_grad=True)
        d = {"a": w.detach()}
        w.add_(1)
        use(d["a"])
    """)
    assert model.value_at(5, "d['a']").storages == model.value_at(5, "w").storages
    storage = next(iter(model.value_at(5, "w").storages))
    assert [(write.line, read.line) for write, read in model.events.reads_after_write(storage)
            if read.place == "d['a']"] == [(5, 6)]


def test_a_list_item_appended_in_a_loop_keeps_the_storage():
    model = solve("""
        import torch
        w = torch.ones(2)
        history = []
        for step in range(3):
            history.append(w.detach())
            w.mul_(0.5)
        print(history[0])
    """)
    assert model.value_at(8, "history[0]").storages == model.value_at(8, "w").storages


def test_a_cloned_dict_item_shares_nothing():
    model = solve("""
        import torch
        w = torch.ones(2, requires_grad=True)
        d = {"a": w.detach().clone()}
        w.add_(1)
        use(d["a"])
    """)
    assert not model.value_at(5, "d['a']").storages & model.value_at(5, "w").storages
