"""The flow graph's edges, seen through the solved values: loops with else, break and
continue, try/except/finally, with, match, comprehensions, lambdas, nested functions, global."""

import ast
import textwrap

import pytest

from flake8_tensorcopy.model import build_model
from flake8_tensorcopy.model.flow import build_graph


def solve(source: str):
    return build_model(ast.parse(textwrap.dedent(source)))


def test_break_skips_the_loop_else_and_both_reach_the_next_statement():
    model = solve("""
        import torch
        for x in [torch.ones(2)]:
            if x.sum() > 0:
                found = x.clone()
                break
        else:
            found = None
        print(found)
    """)
    assert model.value_at(9, "found").kinds == {"tensor", "none"}


def test_continue_returns_to_the_header_and_the_body_end_joins_there():
    model = solve("""
        import torch
        total = 0
        for x in [torch.ones(2)]:
            if x is None:
                continue
            total = total + x
        print(total)
    """)
    assert model.value_at(8, "total").kinds == {"int", "tensor"}


def test_an_infinite_while_loop_leaves_only_by_break():
    graph = build_graph(ast.parse("while True:\n    if a:\n        break\n    b = 1\nc = 2\n"))
    after = [block for block in graph.blocks if any(getattr(op, "lineno", 0) == 5 for op in block.ops)]
    [block] = after
    assert len(block.pred) == 1  # from the break only, no edge from a false test


def test_a_sync_in_finally_covers_the_copy_started_in_try():
    model = solve("""
        import torch
        y = torch.ones(2, device="cuda")
        try:
            h = y.to("cpu", non_blocking=True)
        finally:
            torch.cuda.synchronize()
        h.numpy()
    """)
    [copy] = model.events.find("copy-start", line=5)
    [read] = [event for event in model.events.find("read", line=8) if event.detail.get("value_read")]
    assert model.events.must_sync(copy, read)


def test_a_return_inside_try_passes_through_finally():
    model = solve("""
        import torch
        def fetch(y):
            try:
                return y.to("cpu", non_blocking=True)
            finally:
                torch.cuda.synchronize()
        def leave(y):
            try:
                return y.to("cpu", non_blocking=True)
            except RuntimeError:
                torch.cuda.synchronize()
    """)
    model.summary(model.functions_by_name["fetch"])
    assert not model.functions_by_name["fetch"].summary.in_flight
    assert model.summary(model.functions_by_name["leave"]).in_flight == {(10, 15)}


def test_an_exception_handler_sees_the_state_before_any_statement_of_try():
    model = solve("""
        import torch
        w = torch.ones(2)
        try:
            w = w.clone()
            risky()
        except ValueError as error:
            print(w)
    """)
    assert len(model.value_at(8, "w").storages) == 2


def test_with_binds_its_target_and_runs_its_body():
    model = solve("""
        import torch
        w = torch.ones(2)
        with lock() as guard:
            alias = w.view(-1)
        alias.zero_()
    """)
    [write] = model.events.find("write", line=6)
    assert write.detail["holders"] == ("w",)


def test_match_cases_join():
    model = solve("""
        import torch
        w = torch.ones(2)
        match mode:
            case "share":
                out = w.detach()
            case _:
                out = w.clone()
        print(out)
    """)
    out, w = model.value_at(9, "out"), model.value_at(9, "w")
    assert w.storages < out.storages and not out.fresh


def test_a_comprehension_keeps_its_elements_storages():
    model = solve("""
        import torch
        w = torch.ones(2, requires_grad=True)
        kept = [p.detach() for p in [w]]
        w.add_(1)
        print(kept[0])
    """)
    assert model.value_at(6, "kept[0]").storages == model.value_at(6, "w").storages
    assert not model.value_at(6, "kept[0]").grad


def test_a_lambda_is_summarised_like_a_function():
    model = solve("""
        import torch
        w = torch.ones(2, requires_grad=True)
        strip = lambda t: t.detach()
        v = strip(w)
        print(v)
    """)
    v = model.value_at(6, "v")
    assert v.storages == model.value_at(6, "w").storages and not v.grad and v.is_tensor


def test_a_nested_function_reads_its_enclosing_parameter():
    model = solve("""
        import torch
        def outer(w):
            def inner():
                return w.detach()
            return inner()
        v = outer(torch.ones(2, requires_grad=True))
        print(v)
    """)
    assert model.value_at(8, "v").storages == {(7, 10)}


def test_a_global_declaration_binds_the_module_name():
    model = solve("""
        import torch
        cache = None
        def remember(t):
            global cache
            cache = t.detach()
    """)
    [bind] = model.events.find("bind", line=6)
    assert bind.place == "cache" and "cache" in model.functions_by_name["remember"].graph.declared_global


def test_a_loop_growing_a_nested_container_widens_and_terminates():
    model = solve("""
        import torch
        x = [torch.ones(2)]
        while more():
            x = [x, x]
        print(x)
    """)
    assert model.value_at(6, "x").kinds == {"list"}


def test_what_callers_pass_reaches_the_parameters():
    model = solve("""
        import torch
        def scale(t, factor):
            return t * factor
        scale(torch.ones(2, device="cuda", requires_grad=True), 2)
        scale(torch.zeros(3, device="cuda"), 3.0)
    """)
    t, factor = model.functions_by_name["scale"].passed
    assert t.kinds == {"tensor"} and t.grad and t.device == {"cuda"}
    assert factor.kinds == {"int", "number"}
    assert model.value_at(4, "t").grad and model.value_at(4, "t").evidence("kind").name == "CALLERS"


def test_writes_between_two_points():
    model = solve("""
        import torch
        w = torch.ones(2)
        start = w.sum()
        for i in range(3):
            w.mul_(2)
        end = w.sum()
    """)
    [first] = [event for event in model.events.find("call", line=4)]
    [last] = [event for event in model.events.find("call", line=7)]
    assert [event.line for event in model.events.writes_between(first, last)] == [6]
    assert model.events.writes_between(last, first) == []


# ----- grad facts a user sees through findings (moved from the old analysis's tests)

def test_no_grad_decorator_stops_grad_in_the_function_body(lint):
    source = (
        "import torch\nfrom torch import nn\n"
        "@torch.no_grad()\ndef predict(model: nn.Module, x: torch.Tensor):\n    return model(x).numpy()\n"
        "def unguarded(model: nn.Module, x: torch.Tensor):\n    return model(x).numpy()\n"
    )
    assert lint(source) == [(7, "TEN302")]


# --- the typed grad state: yes / no / unknown, leaf or not, with its evidence --------------


def test_backward_proves_a_graph_tensor_wherever_it_comes(lint):
    """``loss.backward()`` later in the function makes ``running += loss`` a kept graph (TEN306)."""
    source = (
        "import torch\n"
        "def epoch(batches, criterion, step):\n"
        "    running = 0.0\n"
        "    for out, target in batches:\n"
        "        loss = criterion(out, target)\n"
        "        running += loss\n"
        "        loss.backward()\n"
        "        step()\n"
        "    return float(running)\n"
    )
    assert lint(source) == [(6, "TEN306")]
    assert lint(source.replace("        loss.backward()\n", "        print(loss)\n")) == []


def test_a_parameter_annotated_with_a_module_class_of_the_file_knows_its_layers(lint):
    source = (
        "import torch\nfrom torch import nn\n"
        "class Tagger(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.table = nn.Embedding(10, 4)\n"
        "        self.register_buffer('counts', torch.zeros(10))\n"
        "def export(model: Tagger):\n"
        "    return model.table.weight.numpy(), model.counts.numpy()\n"
    )
    assert lint(source) == [(9, "TEN302")]


def test_isinstance_of_a_layer_class_makes_a_module(lint):
    source = (
        "import torch\nfrom torch import nn\n"
        "def stats(model):\n"
        "    kept = {}\n"
        "    for name, layer in model.named_modules():\n"
        "        if isinstance(layer, nn.BatchNorm1d):\n"
        "            kept[name] = torch.Tensor(layer.running_var)\n"
        "        kept[name + '!'] = torch.Tensor(layer.running_var)\n"
        "    return kept\n"
    )
    assert lint(source) == [(7, "TEN103")]


def test_a_class_defined_inside_a_method_is_known_once_its_method_is_solved():
    """Solving a method registers the classes it defines while the file's classes are read:
    the model reads the classes it had, then knows the new one (no error, no lost class)."""
    model = build_model(ast.parse(textwrap.dedent("""
        import torch
        class Outer:
            def make(self):
                class Inner:
                    def __init__(self):
                        self.w = torch.zeros(1)
                return Inner()
    """)))
    assert sorted(model.classes) == ["Inner", "Outer"]
    assert model.instance_attribute("Inner", "w").is_tensor


def test_a_container_emptied_and_refilled_across_a_loop_is_widened_without_error():
    """An empty list joined at a loop header with what is not a container (``acc = xs[n]``)
    widens to a container of unknowns, not an error."""
    model = build_model(ast.parse(textwrap.dedent("""
        def f(xs, n):
            acc = []
            while n:
                n -= 1
                if n > 2:
                    acc = xs[n]
                elif n > 1:
                    acc = acc[0]
            return acc
    """)))
    assert model.functions_by_name["f"].states[1] is not None


def test_a_loop_walking_into_a_container_it_cannot_see_ends():
    """``node = node[key]`` over a dict filled elsewhere: what the loop reaches is a few objects
    deep at most (the storages stay finitely many), so the solve ends."""
    model = build_model(ast.parse(textwrap.dedent("""
        class Trie:
            def __init__(self):
                self.root = {}

            def find(self, path):
                node = self.root
                for key in path:
                    node = node[key]
                return node
    """)))
    reached = model.functions_by_name["Trie.find"].states[1]["node"]
    assert all(len(repr(storage)) < 120 for storage in reached.storages)


def test_a_second_branch_on_one_unchanged_flag_takes_back_the_values_of_the_first():
    model = solve("""
        import torch
        def f(x: torch.Tensor, upcast: bool):
            if upcast:
                y = x.float()
            else:
                y = x.clone()
            if not upcast:
                y.mul_(0.5)
            if upcast:
                y.add_(1)
            upcast = not upcast
            if upcast:
                y.sub_(1)
    """)
    made_by_float, made_by_clone = (5, 12), (7, 12)
    assert model.value_at(9, "y").storages == {made_by_clone}
    assert made_by_clone not in model.value_at(11, "y").storages
    assert {made_by_float, made_by_clone} <= model.value_at(14, "y").storages  # the flag was bound anew


def _events(model) -> list:
    return [(event.kind, type(event.node).__name__, getattr(event.node, "lineno", None),
             getattr(event.node, "col_offset", None), event.place, event.value, event.function.name, event.block,
             event.order, event.in_flight, event.detail) for event in model.events.events]


@pytest.mark.parametrize("every", [False, pytest.param(True, marks=pytest.mark.slow)], ids=["sample", "every"])
def test_events_kept_from_each_blocks_last_run_are_those_of_a_pass_over_the_final_states(monkeypatch, every):
    """The solver keeps each block's events from its last run instead of running every block
    once more (the plugin's largest saving): on the fixtures (``DEFAULT_RUN_FIXTURES`` by default,
    every one under ``-m slow``), with their loops and branches, the events are exactly those a
    recording pass over the final in-states makes."""
    from conftest import DEFAULT_RUN_FIXTURES, FIXTURES
    from flake8_tensorcopy import model as package
    from flake8_tensorcopy.model import solver

    trees = [ast.parse(path.read_text(encoding="utf-8")) for path in sorted(FIXTURES.glob("TEN*.py"))
             if not path.name.endswith(".fixed.py") and (every or path.stem in DEFAULT_RUN_FIXTURES)]
    runs = {"kept": 0, "run again": 0}
    iterate = solver._iterate

    class Runs(dict):
        def __setitem__(self, index, changes):
            runs["run again"] += index in self
            super().__setitem__(index, changes)

    def counting(graph, transfer, entry, kept):
        if kept is None:
            return iterate(graph, transfer, entry, kept)
        runs["kept"] += 1
        counted = Runs()
        result = iterate(graph, transfer, entry, counted)
        kept.update(counted)
        return result

    monkeypatch.setattr(solver, "_iterate", counting)
    kept_back = [_events(build_model(tree)) for tree in trees]
    with monkeypatch.context() as patch:  # kept back nothing: every block runs once more with events on
        patch.setattr(package, "solve_recording", lambda graph, transfer, entry: (solver.solve(graph, transfer, entry), None))
        recorded_again = [_events(build_model(tree)) for tree in trees]
    assert runs["kept"] > (1000 if every else 250) and runs["run again"] > (500 if every else 100)  # loops run again
    assert kept_back == recorded_again


# a class defined inside a function, keeping a graph tensor on self in forward (indented for it)
_ROUTER = """class Router(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.proj = nn.Linear(4, 4)
                def forward(self, x):
                    self.aux_loss = self.proj(x).mean()
                    return x"""
_READ_BY_A_LATER_RUN = {
    # module code reads a name its state lacks: the recording pass read the module's exit state
    "module exit state": """
        import torch
        w = torch.nn.Parameter(torch.randn(3))
        if w.sum() > 0:
            keep = saved.data
            keep.add_(1)
        saved = w
    """,
    # the base of an attribute store is evaluated only while recording: ``.item()`` in it syncs
    "attribute store base": """
        import torch
        def f(x: torch.Tensor, n: torch.Tensor, v: torch.Tensor):
            h = x.to("cpu", non_blocking=True)
            x[n.item()].data = v
            if v.sum() > 0:
                print(h.tolist())
            return h
    """,
    # a class a later statement of the function defines: ``layer.aux_loss`` is known by its name
    "class defined later": """
        import copy
        from torch import nn
        def snapshot(layer):
            kept = copy.deepcopy(layer.aux_loss)
            {router}
            return kept, Router
    """.format(router=_ROUTER),
    # the same class, defined in a function whose summary the statement after the read asks for
    # (the finding then depends on which of the two functions the file defines first)
    "class a later call's summary defines": """
        import copy
        from torch import nn
        def make_router():
            {router}
            return Router
        def snapshot(layer):
            kept = copy.deepcopy(layer.aux_loss)
            return kept, make_router()
    """.format(router=_ROUTER),
    # the lambda's call summarises its enclosing function, whose symbolic solve rebinds the closure
    "closure rebound by a summary": """
        import torch
        def scaled(x: torch.Tensor, factor=None):
            if factor is None:
                return lambda factor: scaled(x.detach(), factor)
            return x * factor
    """,
    # ``fresh_source`` of an alias a call hands back reads the call's previous evaluation
    "call's previous evaluation": """
        import torch
        def halves(n):
            t = torch.zeros(2 * n)
            return t.chunk(2)
        def main():
            a, b = halves(3)
            a.add_(1)
            return b
    """,
}


@pytest.mark.parametrize("source", list(_READ_BY_A_LATER_RUN.values()), ids=list(_READ_BY_A_LATER_RUN))
def test_events_kept_from_a_blocks_last_run_are_those_a_later_recording_pass_makes(monkeypatch, source):
    """What a block's run reads besides its in-state (the module's exit state, the model's
    classes, closures, the transfer's memory of earlier evaluations, what the base of an
    attribute store does to the state) must not differ between its last run during the solve
    and a recording pass over the final in-states after it."""
    from flake8_tensorcopy import model as package
    from flake8_tensorcopy.model import solver

    tree = ast.parse(textwrap.dedent(source))
    kept_back = _events(build_model(tree))
    monkeypatch.setattr(package, "solve_recording", lambda graph, transfer, entry: (solver.solve(graph, transfer, entry), None))
    assert kept_back == _events(build_model(tree))


def test_a_name_rebound_on_the_path_that_saved_its_memory_holds_unsaved_memory_at_the_join():
    """The fixture's ``SkipGate`` and ``RenamedGate``: where TEN307 stays silent after a branch
    whose layer saved what ``h`` named before it rebound ``h`` (also through ``g = h``), the write
    does not raise; where it reports, it does, gated or not where the flagged path always runs."""
    torch = pytest.importorskip("torch")
    from conftest import FIXTURES

    namespace: dict = {}
    exec(compile((FIXTURES / "TEN307.py").read_text(encoding="utf-8"), "TEN307.py", "exec"), namespace)
    methods = ("forward", "stacked", "either", "kept", "saved_after", "renamed", "renamed_saved")
    raised: dict = {method: set() for method in methods}  # the gated values for which backward raises
    for gated in (True, False):
        block = namespace["RenamedGate"](gated)  # SkipGate's methods, and a second name for h
        for method in methods:
            x = torch.rand(2, 4, requires_grad=True)
            out = getattr(block, method)(x, 3) if method == "stacked" else getattr(block, method)(x)
            try:
                out.sum().backward()
            except RuntimeError as error:
                assert "modified by an inplace operation" in str(error)
                raised[method].add(gated)
    assert raised == {"forward": set(), "stacked": set(), "either": set(), "kept": {True},
                      "saved_after": {True, False}, "renamed": set(), "renamed_saved": {True, False}}


def test_a_test_no_value_can_pass_ends_its_path():
    model = solve("""
        import torch

        def _pad(x, width=None):
            if width is not None:
                padded = x.clone()
                print(padded)
            return x

        def scaled(x: torch.Tensor, cast: bool):
            if cast:
                y = x.float()
                if not cast:
                    z = x.clone()
                    print(z)
            return _pad(x)
    """)
    writes = {event.line for event in model.events.events if event.kind == "bind"}
    assert 6 not in writes  # no call of the file passes width: the branch runs for none
    assert 13 not in writes and 12 in writes  # inside ``if cast:``, ``if not cast:`` never holds


def test_a_tuple_concatenated_with_what_a_module_returns_is_a_tuple():
    """``(last, pooled) + encoder_outputs[1:]``: Python concatenation, which raises TypeError for a
    tensor on either side, so the result is a tuple whatever the model took the other side for
    (not an array: NumPy adds a list element-wise)."""
    model = build_model(ast.parse(
        "import torch\nfrom torch import nn\n"
        "def pooled(encoder: nn.Linear, x: torch.Tensor):\n"
        "    encoder_outputs = encoder(x)\n"
        "    last = encoder_outputs * 2\n"
        "    outputs = (last, last.mean(1)) + encoder_outputs[1:]\n"
        "    listed = [last] + list(encoder_outputs)\n"
        "    return outputs, listed\n"))
    assert model.value_at(8, "outputs").kinds == {"tuple"}
    assert model.value_at(8, "listed").kinds == {"list"}
    assert model.value_at(8, "last").kinds == {"tensor"}
    shifted = build_model(ast.parse("import numpy as np\npoints = np.zeros(2)\ncentre = [0.5, 0.5] + points\n"))
    assert shifted.exit_state()["centre"].kinds == {"ndarray"}  # an array adds a list element-wise
    torch = pytest.importorskip("torch")
    with pytest.raises(TypeError):
        (torch.ones(2),) + torch.ones(3)
    numpy = pytest.importorskip("numpy")
    assert isinstance([0.5, 0.5] + numpy.zeros(2), numpy.ndarray)
