"""The issue's examples as facts of the model, with variants a user would write and clean
look-alikes: each fact follows from value properties, never from one spelling."""

import ast
import textwrap

import pytest

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


# ----- asynchronous copies and sync points

def test_a_pending_copy_made_by_a_helper_is_read_without_a_sync():
    model = solve("""
        import torch
        def to_host(x):
            return x.to("cpu", non_blocking=True)
        y = torch.ones(2, device="cuda")
        to_host(y).numpy()
    """)
    [read] = [event for event in model.events.find("read", line=6) if event.detail.get("value_read")]
    assert model.events.unsynced(read) == {(4, 11)}


def test_a_pending_copy_from_a_method_synced_on_every_path_is_clean():
    model = solve("""
        import torch
        class Loader:
            def fetch(self, batch):
                return batch.cuda(non_blocking=True)
        batch = Loader().fetch(torch.ones(2))
        torch.cuda.synchronize()
        print(batch.tolist())
    """)
    [read] = [event for event in model.events.find("read", line=8) if event.detail.get("value_read")]
    assert not model.events.unsynced(read)


def test_a_sync_under_a_condition_is_not_a_sync_on_every_path():
    model = solve("""
        import torch
        y = torch.ones(2, device="cuda")
        h = y.to("cpu", non_blocking=True)
        if flag:
            torch.cuda.synchronize()
        h.numpy()
    """)
    [copy] = model.events.find("copy-start", line=4)
    [read] = [event for event in model.events.find("read", line=7) if event.detail.get("value_read")]
    assert not model.events.must_sync(copy, read)


def test_a_stream_sync_in_both_branches_is_a_sync_on_every_path():
    model = solve("""
        import torch
        y = torch.ones(2, device="cuda")
        h = y.to("cpu", non_blocking=True)
        if flag:
            torch.cuda.synchronize()
        else:
            torch.cuda.current_stream().synchronize()
        h.numpy()
    """)
    [copy] = model.events.find("copy-start", line=4)
    [read] = [event for event in model.events.find("read", line=9) if event.detail.get("value_read")]
    assert model.events.must_sync(copy, read)


# ----- who else holds a written storage

def test_rebinding_a_name_to_a_detached_view_leaves_no_other_holder():
    model = solve("""
        import torch
        x = torch.ones(2, requires_grad=True)
        x = x.detach()
        x += 1
    """)
    [write] = model.events.find("write", line=5)
    assert write.detail["holders"] == ()


def test_another_name_still_holding_the_storage_is_a_holder():
    model = solve("""
        import torch
        def step(t):
            kept = t
            t = t.detach()
            t.mul_(2)
            return kept
    """)
    [write] = model.events.find("write", line=6)
    assert write.detail["holders"] == ("kept",)


# ----- writes to storages autograd saved for backward

def test_a_write_through_an_alias_of_a_sigmoid_output_returned_by_a_method():
    model = solve("""
        import torch
        from torch import nn
        class Gate(nn.Module):
            def __init__(self):
                super().__init__()
                self.lin = nn.Linear(4, 4)
            def gate(self, h):
                return torch.sigmoid(self.lin(h))
            def forward(self, h, w):
                p = self.gate(h)
                r = p
                r *= w
                return r
    """)
    [write] = model.events.find("write", line=13)
    assert write.detail["saved"] and write.detail["saved"] <= model.value_at(13, "p").storages


def test_a_write_to_a_sigmoid_of_a_detached_tensor_touches_nothing_saved():
    model = solve("""
        import torch
        class Gate:
            def gate(self, h):
                return torch.sigmoid(h.detach())
            def forward(self, h, w):
                p = self.gate(h)
                r = p
                r *= w
                return r
        Gate().forward(torch.ones(2), torch.ones(2))
    """)
    [write] = model.events.find("write", line=9)
    assert not write.detail["saved"]


def test_a_write_to_the_input_of_a_layer_built_in_init():
    model = solve("""
        import torch.nn as nn
        class Decoder(nn.Module):
            def __init__(self):
                super().__init__()
                self.post = nn.Conv1d(80, 80, 5)
            def forward(self, mel, mask):
                out = mel + self.post(mel)
                mel.masked_fill_(mask, 0.0)
                return out
    """)
    [write] = model.events.find("write", line=9)
    assert write.detail["saved"] == {("param", 1, "Decoder.forward"), ("handed", "Decoder", "Decoder.forward", "mel")}
    assert "module" in model.value_at(8, "self.post").kinds


def test_a_subclass_holds_the_layers_its_base_class_of_the_file_built_in_init():
    model = solve("""
        import torch.nn as nn
        class Base(nn.Module):
            def __init__(self):
                super().__init__()
                self.post = nn.Conv1d(80, 80, 5)
        class Mid(Base):
            pass
        class Leaf(Mid):
            def forward(self, mel, mask):
                out = mel + self.post(mel)
                mel.masked_fill_(mask, 0.0)
                return out
        class Other:
            def forward(self, mel, mask):
                out = mel + self.post(mel)
                mel.masked_fill_(mask, 0.0)
                return out
    """)
    [write] = model.events.find("write", line=12)
    assert write.detail["saved"] == {("param", 1, "Leaf.forward"), ("handed", "Leaf", "Leaf.forward", "mel")}
    assert "module" in model.value_at(11, "self.post").kinds
    [other] = model.events.find("write", line=17)
    assert not other.detail["saved"]  # nothing of the file says what Other's self.post is


def test_a_write_to_a_copy_of_a_layers_input_touches_nothing_saved():
    model = solve("""
        import torch.nn as nn
        class Decoder(nn.Module):
            def __init__(self):
                super().__init__()
                self.post = nn.Conv1d(80, 80, 5)
            def forward(self, mel, mask):
                out = mel + self.post(mel)
                mel = mel.clone()
                mel.masked_fill_(mask, 0.0)
                return out
    """)
    [write] = model.events.find("write", line=10)
    assert not write.detail["saved"]


# ----- graph tensors accumulated across iterations

def test_a_loss_accumulated_after_backward_is_a_graph_tensor_at_the_return():
    model = solve("""
        import torch
        def train(model, loader, n):
            running = 0.0
            for x in loader:
                loss = model(x).sum()
                loss.backward()
                running += loss
            return running / n
        train(torch.nn.Linear(2, 2), [torch.ones(2)], 1)
    """)
    assert model.value_at(9, "running").graph
    [back] = model.events.find("backward", line=7)
    assert model.functions_by_name["train"].summary.backward


def test_a_loss_accumulated_in_a_while_loop_as_an_attribute():
    model = solve("""
        import torch
        class Trainer:
            def __init__(self, net):
                self.net = net
                self.total = 0
            def epoch(self, batches):
                while batches:
                    loss = self.net(batches.pop()).mean()
                    self.total = self.total + loss
                return self.total
        Trainer(torch.nn.Linear(2, 2)).epoch([torch.ones(2)])
    """)
    assert model.value_at(11, "self.total").graph


def test_a_loss_accumulated_as_a_number_is_no_graph_tensor():
    model = solve("""
        import torch
        def train(model, loader, n):
            running = 0.0
            for x in loader:
                loss = model(x).sum()
                loss.backward()
                running += loss.item()
            return running / n
        train(torch.nn.Linear(2, 2), [torch.ones(2)], 1)
    """)
    assert not model.value_at(9, "running").graph


# ----- narrowing is a flow node

def test_a_move_under_a_dtype_inequality_always_copies():
    model = solve("""
        import torch
        def cast(x, dtype):
            if x.dtype != dtype:
                y = x.to(dtype)
                return y
            return x
    """)
    moved = model.value_at(6, "y")
    assert moved.fresh and not moved.storages & model.value_at(6, "x").storages


def test_a_move_on_the_equal_branch_or_after_the_branches_join_may_return_the_tensor_itself():
    model = solve("""
        import torch
        def cast(x, dtype):
            if not x.dtype == dtype:
                pass
            else:
                y = x.to(dtype)
                return y
            z = x.to(dtype)  # only the unequal path reaches here: a copy
            return z
        def maybe(x, dtype):
            if x.dtype != dtype:
                print(dtype)
            u = x.to(dtype)
            return u
    """)
    assert model.value_at(8, "y").storages & model.value_at(8, "x").storages
    assert not model.value_at(10, "z").storages & model.value_at(10, "x").storages
    assert model.value_at(15, "u").storages & model.value_at(15, "x").storages


def test_a_move_under_a_negated_equality_always_copies():
    model = solve("""
        import torch
        def cast(x, dtype):
            if not x.dtype == dtype:
                y = x.to(dtype=dtype)
                return y
    """)
    assert not model.value_at(6, "y").storages & model.value_at(6, "x").storages


# ----- module parameters (TEN2xx): an annotated module, its named parameters, a caller's model

def test_a_parameter_annotated_as_a_module_is_one_and_its_parameters_are_its_storages():
    model = solve("""
        import torch
        from torch import nn
        def drift(net: nn.Module, lr: float):
            for name, p in net.named_parameters():
                p.sub_(lr)
    """)
    assert "module" in model.value_at(6, "net").kinds
    assert model.value_at(6, "p").is_tensor and model.value_at(6, "name").kinds == {"str"}
    [write] = model.events.find("write", line=6)
    assert model.value_at(6, "net").storages < write.storages


def test_two_functions_given_a_model_may_write_the_same_parameters_but_not_a_model_built_here():
    model = solve("""
        import torch
        from torch import nn
        def keep(net: nn.Module):
            return [p.detach() for p in net.parameters()]
        def train(net: nn.Module):
            opt = torch.optim.SGD(net.parameters(), lr=0.1)
            opt.step()
        def local():
            opt = torch.optim.SGD(nn.Linear(2, 2).parameters(), lr=0.1)
            opt.step()
    """)
    [kept] = model.events.find("alias", line=5)
    [trained] = model.events.find("write", line=8)
    [built] = model.events.find("write", line=11)
    assert kept.value.storages & trained.storages
    assert not kept.value.storages & built.storages


def test_an_item_appended_is_bound_as_the_containers_items():
    model = solve("""
        import torch
        def keep(w: torch.Tensor):
            kept = []
            kept.append(w.detach())
            return kept
    """)
    [bind] = model.events.find("bind", line=5)
    assert bind.place == "kept[*]" and bind.value.storages == model.value_at(5, "w").storages


# ----- optimizers given by callers (TEN2xx): what the optimizer holds travels with it

def _written_by_step(model, line):
    return frozenset().union(*(event.storages for event in model.events.find("write", line=line)))


def test_an_optimizer_a_caller_built_from_a_model_writes_that_model_passed_beside_it():
    model = solve("""
        import torch
        from torch import nn
        def train_step(net, opt):
            before = net.weight.detach()
            opt.step()
            return before
        def other(net, opt):
            opt.step()
        def main():
            net, probe = nn.Linear(2, 2), nn.Linear(2, 2)
            train_step(net, torch.optim.SGD(net.parameters(), lr=0.1))
            other(probe, torch.optim.SGD(params=[{"params": net.parameters()}], lr=0.1))
    """)
    assert model.value_at(6, "before").storages <= _written_by_step(model, 6)
    assert not model.value_at(9, "net").storages & _written_by_step(model, 9)  # probe is not what opt holds


def test_a_helper_that_steps_its_optimizer_parameter_writes_at_each_call_what_that_optimizer_holds():
    model = solve("""
        import torch
        from torch import nn
        def update(opt):
            opt.step()
        def make(net):
            return torch.optim.SGD(filter(lambda p: p.requires_grad, net.parameters()), lr=0.1)
        def main():
            net = nn.Linear(2, 2)
            kept = net.weight.detach()
            update(make(net))
            return kept
    """)
    assert model.value_at(11, "kept").storages <= _written_by_step(model, 11)


def test_an_optimizer_given_to_init_is_held_by_the_attribute_and_steps_the_model_kept_beside_it():
    model = solve("""
        import torch
        from torch import nn
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(2, 2)
                self.scale = nn.Parameter(torch.ones(1))
        class Trainer:
            def __init__(self, model, opt):
                self.model, self.opt = model, opt
            def fit(self):
                snap = (self.model.fc.weight.detach(), self.model.scale.detach())
                self.opt.step()
                return snap
        def main():
            net = Net()
            Trainer(net, torch.optim.SGD(net.parameters(), lr=0.1)).fit()
    """)
    [alias_fc, alias_scale] = sorted(model.events.find("alias", line=13), key=lambda event: event.node.col_offset)
    assert alias_fc.value.storages | alias_scale.value.storages <= _written_by_step(model, 14)


def test_a_call_named_as_training_writes_the_modules_it_is_given_and_items_pairs_keep_the_values():
    model = solve("""
        import torch
        from torch import nn
        from mylib import train_one_epoch, evaluate
        def main():
            net = nn.Linear(2, 2)
            start = {k: v for k, v in net.state_dict().items()}
            evaluate(net)
            train_one_epoch(net)
            return start
    """)
    assert model.value_at(10, "start").item("*").storages
    assert not model.events.find("write", line=8)
    [write] = model.events.find("write", line=9)
    assert write.detail["training"] and model.value_at(10, "start").item("*").storages <= write.storages


# ----- NumPy arrays are values: what writes them, what shares their memory (TEN201/TEN202)

def _array_writes(statement: str):
    model = solve("""
        import numpy as np
        import torch
        def fill_(t):
            t[:] = 0
        x = torch.ones(3)
        a = x.numpy()
        %s
    """ % statement)
    return [event.storages for event in model.events.find("write", line=8)], model.value_at(8, "x").storages


def test_each_spelling_of_an_in_place_array_write_writes_the_tensors_memory():
    for statement in ("a[0] = 1", "a += 1", "a[a < 0] = 0", "np.copyto(a, np.zeros(3))", "np.add(a, 1, out=a)",
                      "a.sort()", "a.fill(0)", "np.random.shuffle(a)", "fill_(a)", "a.reshape(-1)[0] = 1"):
        writes, tensor = _array_writes(statement)
        assert writes and all(written == tensor for written in writes), statement


def test_reading_copying_or_rebinding_an_array_writes_nothing():
    for statement in ("c = a + 1", "print(a.sum())", "b = a.copy()", "a = a + 1", "b = a[[0, 2]]", "x.requires_grad_()"):
        assert _array_writes(statement)[0] == [], statement


def test_a_cast_after_a_dtype_equality_to_another_dtype_always_copies():
    model = solve("""
        import numpy as np
        import torch
        def frames_to_float(frames: np.ndarray):
            if frames.dtype != np.uint8:
                raise TypeError(frames.dtype)
            clip = torch.from_numpy(frames).permute(2, 0, 1).float()
            return clip
    """)
    clip, frames = model.value_at(8, "clip"), model.value_at(8, "frames")
    assert clip.fresh and not clip.storages & frames.storages
    same = solve("""
        import numpy as np
        import torch
        def frames_as_bytes(frames: np.ndarray):
            if frames.dtype != np.uint8:
                raise TypeError(frames.dtype)
            clip = torch.from_numpy(frames).to(torch.uint8)
            return clip
    """)
    assert same.value_at(8, "clip").storages & same.value_at(8, "frames").storages


def test_a_layers_parameters_are_float32_so_double_copies_them():
    model = solve("""
        import torch
        net = torch.nn.Linear(2, 2)
        for p in net.parameters():
            w = p.detach().double()
        net.double()
        for p in net.parameters():
            v = p.detach().double()
    """)
    assert model.value_at(6, "w").fresh
    assert not model.exit_state()["v"].fresh  # the layer was cast in place: its dtype is no longer known


def test_an_attribute_set_from_a_constructor_parameter_is_memory_the_instance_holds():
    model = solve("""
        import numpy as np
        class Table:
            def __init__(self, rows: np.ndarray):
                self.rows = rows
            def row(self, i: int):
                return self.rows[i]
        def first(table: Table):
            r = table.row(0)
            return r
    """)
    assert model.value_at(10, "r").storages == model.classes["Table"].attributes["rows"].storages != frozenset()


def test_a_method_writing_what_the_constructor_made_writes_it_at_each_call():
    model = solve("""
        import numpy as np
        class Sensor:
            def __init__(self):
                self.buf = np.zeros(3)
            def step(self, v: float):
                self.buf[:] = v
        def run(sensor: Sensor):
            sensor.step(1.0)
    """)
    [write] = model.events.find("write", line=9)
    assert write.storages == model.classes["Sensor"].attributes["buf"].storages


# ----- modules: the weights a load writes, instances of one class, what a class is handed (TEN208)

def test_loading_a_state_writes_the_module_unless_it_is_the_modules_own_state():
    model = solve("""
        import torch
        def reload(net: torch.nn.Module, other):
            net.load_state_dict(other)
            own = net.state_dict()
            net.load_state_dict(own)
    """)
    [load_other, load_own] = sorted(model.events.find("load"), key=lambda event: event.line)
    assert [event.line for event in model.events.find("write")] == [4]
    assert model.events.find("write", line=4)[0].storages == load_other.detail["weights"] != frozenset()
    assert load_own.value.storages & load_own.detail["weights"]  # it takes back what it holds


def test_each_instance_of_a_class_holds_submodules_of_its_own():
    model = solve("""
        import torch
        from torch import nn
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(2, 2)
        def main():
            teacher, student = Net(), Net()
            opt = torch.optim.SGD(student.parameters(), lr=0.1)
            kept = teacher.state_dict()
            opt.step()
            return kept, teacher.fc.weight, student.fc.weight
    """)
    [kept] = model.events.find("alias", line=11)
    assert not kept.value.storages & _written_by_step(model, 12)
    teacher_fc, student_fc = (model.value_at(13, place).storages for place in ("teacher", "student"))
    assert teacher_fc and student_fc and not teacher_fc & student_fc


def test_what_a_class_is_handed_is_one_object_for_all_its_methods():
    model = solve("""
        import torch
        from torch import nn
        class Trainer:
            def __init__(self, net: nn.Module):
                self.net = net
                self.opt = torch.optim.SGD(net.parameters(), lr=0.1)
            def run(self):
                kept = self.net.state_dict()
                self.opt.step()
                return kept
        class Other:
            def __init__(self, net: nn.Module):
                self.net = net
            def snap(self):
                return self.net.state_dict()
    """)
    [kept] = model.events.find("alias", line=9)
    [other] = model.events.find("alias", line=16)
    assert kept.value.storages <= _written_by_step(model, 10)
    assert not other.value.storages & _written_by_step(model, 10)  # another class's net: not that optimizer's


def test_an_item_of_a_container_filled_elsewhere_remembers_the_container():
    model = solve("""
        class Slots:
            def __init__(self):
                self.slots = {}
            def get(self, key):
                slot = self.slots[key]
                return slot
    """)
    assert "item_of:self.slots" in model.value_at(7, "slot").facts


def test_an_augmented_assignment_writes_an_annotated_array_parameter_for_the_caller():
    model = solve("""
        import numpy as np
        def centered(arr: np.ndarray) -> np.ndarray:
            arr -= arr.mean()
            return arr
    """)
    summary = model.summary(model.functions_by_name["centered"])
    assert summary.writes == frozenset((0,))
    assert summary.returns.storages == frozenset((("param", 0, "centered"),))  # the argument itself comes back


def test_an_alias_handed_to_a_helper_that_returns_it_comes_back_as_that_alias():
    model = solve("""
        import torch
        def same(t):
            return t
        def main(x: torch.Tensor):
            y = same(x.view(-1))
            z = same(x)
            return y, z
    """)
    [view] = model.events.find("alias", line=6)
    assert view.detail["operation"] == "view" and model.value_at(8, "y").made == view.value.made
    [named] = model.events.find("alias", line=7)
    assert named.detail["op"] == "same() returning its argument"


# ----- which operation makes each alias, as the rules on the model claim them (ported from test_aliases.py)

@pytest.mark.parametrize("body, code, source", [
    ("y = x.view(-1)", "TEN204", "x"),
    ("y = x[0]", "TEN204", "x"),
    ("y = x[:, 1:3]", "TEN204", "x"),
    ("y = x.T", "TEN204", "x"),
    ("y = x", "TEN206", "x"),
    ("m = torch.nn.Linear(2, 2)\nbest = m.state_dict()", "TEN208", "m"),
    ("m = torch.nn.Linear(2, 2)\nbest = dict(m.state_dict())", "TEN208", "m"),
    ("m = torch.nn.Linear(2, 2)\nbest = {k: v for k, v in m.state_dict().items()}", "TEN208", "m"),
])
def test_the_alias_each_spelling_makes_is_the_claiming_rules(body, code, source):
    from flake8_tensorcopy.rules import RULES_BY_CODE
    from flake8_tensorcopy.rules.sharing import chains

    model = solve("import torch\nx = torch.ones(3, 3)\n" + body + "\n")
    [(alias, kind)] = list(chains(model))
    assert kind in RULES_BY_CODE[code].kinds and alias.place == source


# ----- a parameter known as the trained module by use

def test_a_parameter_called_in_a_function_that_backpropagates_is_the_module_it_trains():
    model = solve("""
        def fit(net, opt, batches):
            for x in batches:
                net(x).sum().backward()
                opt.step()
            return net
        def predict(net, batches):
            return [net(x) for x in batches]
    """)
    assert model.value_at(6, "net").kinds == {"module"}  # fit's return
    assert model.value_at(6, "net").evidence("kind").name == "TRAINED"
    [step] = [event for event in model.events.find("write") if event.line == 5]
    assert model.value_at(6, "net").storages <= step.storages  # the step writes what net holds
    assert "?" in model.value_at(8, "net").kinds  # predict runs no backward: unknown still



def test_a_property_is_its_getters_value_plain_or_instantiated():
    model = solve("""
        import torch
        class Meter:
            def __init__(self):
                self.total = torch.zeros(2)
            @property
            def ratio(self):
                return 0.5
            @property
            def view(self):
                return self.total.detach()
        def read(meter: Meter):
            r = meter.ratio
            v = meter.view
            return r, v
    """)
    assert model.value_at(15, "r").kinds == {"number"}  # a plain getter: its value, no call instantiated
    view = model.value_at(15, "v")
    assert view.is_tensor and view.made and not view.grad  # the getter's alias of the object's tensor


# ----- what a method kept or hands back, seen by the module's code that builds the object

@pytest.mark.parametrize("source, line", [
    # a callback keeps p.data of a model the script built before calling it, then the script steps
    ("""import torch
class Recorder:
    def __init__(self):
        self.start = {}
    def keep(self, model):
        for name, p in model.named_parameters():
            self.start[name] = p.data
model = torch.nn.Linear(3, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.5)
recorder = Recorder()
recorder.keep(model)
model(torch.randn(4, 3)).sum().backward()
opt.step()
""", 7),
    # a method hands back a detached view of its state, another method writes the state
    ("""import torch
class Search:
    def __init__(self):
        self.theta = torch.randn(4)
    def snapshot(self):
        return self.theta.detach()
    def perturb(self):
        self.theta.add_(1.0)
search = Search()
saved = search.snapshot()
search.perturb()
print(saved)
""", 10),
])
def test_an_alias_a_method_makes_of_what_the_script_built_is_written_by_the_script(source, line):
    from flake8_tensorcopy.engine import lint_source

    assert [(finding.line, finding.code) for finding in lint_source(source)] == [(line, "TEN203")]
