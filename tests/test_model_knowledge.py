"""Every entry of the hand-kept knowledge table is exercised by its own fixture line."""

import ast

import pytest

from flake8_tensorcopy.knowledge import HAND_TABLE, RESULT_DTYPES, role_of
from flake8_tensorcopy.model import build_model


def _last_line(example: str) -> int:
    return example.count("\n") + 1


def _value_after(model, example: str, place: str):
    return model.exit_state()[place]


def check_detach(model, example):
    result, w = _value_after(model, example, "r"), _value_after(model, example, "w")
    assert result.storages == w.storages and not result.grad


def check_move(model, example):
    """The tensor itself where its dtype may stay (an alias), a copy where it surely changes."""
    result, w = _value_after(model, example, "r"), _value_after(model, example, "w")
    before, after = _dtypes(w), _dtypes(result)
    if before and after and before != after:
        assert result.fresh and not result.storages & w.storages
    else:
        assert w.storages < result.storages


def _dtypes(value) -> set:
    return {fact for fact in value.facts if fact.startswith("dtype:")}


def check_copy(model, example):
    result, w = _value_after(model, example, "r"), _value_after(model, example, "w")
    assert result.fresh and not result.storages & w.storages


def check_value_read(model, example):
    reads = [event for event in model.events.find("read", line=_last_line(example)) if event.detail.get("value_read")]
    assert [event.place for event in reads] == ["w"]


def check_sync(model, example):
    [sync] = model.events.find("sync", line=_last_line(example))
    assert not model.exit_state().get("!in_flight")


def check_event(model, example):
    assert _value_after(model, example, "r").kinds == {"event"}


def check_record(model, example):
    [copy] = model.events.find("copy-start")
    assert copy.detail["copy"] in _value_after(model, example, "r").pending


def check_event_sync(model, example):
    [sync] = model.events.find("sync", line=_last_line(example))
    assert not model.exit_state().get("!in_flight")


def check_async_copy(model, example):
    [copy] = model.events.find("copy-start", line=_last_line(example))
    assert copy.detail["copy"] in model.exit_state()["!in_flight"]
    assert copy.detail["copy"] in _value_after(model, example, "r").pending


def check_pin(model, example):
    assert _value_after(model, example, "r").pinned and not _value_after(model, example, "w").pinned


def check_device(model, example):
    assert _value_after(model, example, "r").device == {"cpu"}


def check_host_read(model, example):
    reads = [event for event in model.events.find("read", line=_last_line(example)) if event.detail.get("value_read")]
    assert [event.storages for event in reads] == [_value_after(model, example, "w").storages]


def check_retain_grad(model, example):
    assert "retains_grad" in _value_after(model, example, "r").facts


def check_module_container(model, example):
    held = _value_after(model, example, "r").all_items()
    assert "module" in _value_after(model, example, "r").kinds and held.storages == _value_after(model, example, "m").storages


def check_module_chain(model, example):
    saved = model.exit_state()["!saved"]
    assert _value_after(model, example, "r").storages <= saved and _value_after(model, example, "w").storages <= saved
    ending_in_linear = build_model(ast.parse(example.replace("torch.nn.Sigmoid()", "torch.nn.Linear(2, 2)")))
    saved = ending_in_linear.exit_state()["!saved"]  # a linear layer keeps its input, not its output
    assert not ending_in_linear.exit_state()["r"].storages & saved and ending_in_linear.exit_state()["w"].storages <= saved


def check_differentiable(model, example):
    assert _value_after(model, example, "r").graph and not _value_after(model, example, "w").graph
    inside = build_model(ast.parse(example.replace("r = ", "with torch.no_grad():\n    r = ")))
    assert not inside.exit_state()["r"].grad


def check_tensor_dict(model, example):
    item = _value_after(model, example, "r").item("'weight'")
    assert item.is_tensor and not item.grad


def check_shows(model, example):
    check_host_read(model, example)


def check_integer(model, example):
    assert _value_after(model, example, "r").kinds == {"int"}


def check_backward(model, example):
    assert model.events.find("backward", line=_last_line(example))


def check_step(model, example):
    assert model.events.find("step", line=_last_line(example))


def check_clears_grads(model, example):
    """The gradient held before ``zero_grad()`` (one tensor, however often read) is not the one
    the backwards after it fill: the second writes the new one, and only that."""
    state = model.exit_state()
    assert state["r"].storages == state["q"].storages
    [write] = model.events.find("write")
    assert write.line == _last_line(example) and write.value.storages == state["s"].storages
    assert not state["r"].storages & state["s"].storages


def check_scales_grads(model, example):
    [write] = model.events.find("write", line=_last_line(example))
    assert write.value.storages == _value_after(model, example, "r").storages


def check_buffer_view(model, example):
    result = _value_after(model, example, "r")
    assert result.kinds in ({"ndarray"}, {"tensor"}) and "dtype:float32" in result.facts


def check_grad_norm(model, example):
    result = _value_after(model, example, "r")
    assert result.is_tensor and result.fresh and not result.grad


def check_param_groups(model, example):
    result, w = _value_after(model, example, "r"), _value_after(model, example, "w")
    assert result.is_tensor and result.storages == w.storages and result.grad


def check_module(model, example):
    assert _value_after(model, example, "r").kinds == {"module"}


def check_optimizer(model, example):
    assert _value_after(model, example, "r").kinds == {"optimizer"}


def check_scheduler(model, example):
    assert _value_after(model, example, "r").kinds == {"scheduler"} and not model.events.find("write")


def check_distribution(model, example):
    result = _value_after(model, example, "r")
    assert result.kinds == {"distribution"} and result.grad


def check_reparameterized(model, example):
    result = _value_after(model, example, "r")
    assert result.is_tensor and result.grad and result.graph


def check_draw(model, example):
    result = _value_after(model, example, "r")
    assert result.is_tensor and not result.grad and _value_after(model, example, "d").grad


def check_array_only(model, example):
    [alias] = model.events.find("alias")
    assert alias.detail["operation"] == "from_numpy" and alias.value.storages == {("param", 0, "f")}


def check_legacy_of_array(model, example):
    result, w = _value_after(model, example, "r"), _value_after(model, example, "w")
    assert result.is_tensor and result.storages == w.storages and not result.fresh


def check_forward_hook(model, example):
    kept = _value_after(model, example, "r").item("'out'")
    assert kept is not None and kept.is_tensor and kept.graph


def check_default_dict(model, example):
    result, w = _value_after(model, example, "r"), _value_after(model, example, "w")
    assert result.kinds == {"dict"} and result.item("'a'").item("0").storages == w.storages


def check_binds_arguments(model, example):
    result, w = _value_after(model, example, "r"), _value_after(model, example, "w")
    assert result.storages == w.storages  # f(w, 1) returns w


def check_overlapping_each(model, example):
    grids = [_value_after(model, example, name) for name in ("r", "q")]
    inputs = [_value_after(model, example, name) for name in ("w", "u")]
    assert [grid.storages for grid in grids] == [given.storages for given in inputs]
    assert all("overlapping:meshgrid()" in grid.facts for grid in grids)


def check_collating_loader(model, example):
    label = _value_after(model, example, "r")  # a number in the dataset, a tensor in the batch
    assert label.is_tensor and label.evidence("kind").name == "COLLATED"


def check_tensor_dataset(model, example):
    assert _value_after(model, example, "r").kinds == {"tensor_dataset"}


def check_yields_items(model, example):
    assert _value_after(model, example, "r").storages == _value_after(model, example, "w").storages


def check_dict_of_pairs(model, example):
    result, w = _value_after(model, example, "r"), _value_after(model, example, "w")
    assert [key for key, _ in result.items] == ["'a'", "'b'"] and result.item("'a'").storages == w.storages


def check_parameter(model, example):
    result = _value_after(model, example, "r")
    assert result.is_tensor and result.grad and not result.graph


def check_module_call(model, example):
    result = _value_after(model, example, "r")
    assert result.graph and _value_after(model, example, "w").storages <= model.exit_state()["!saved"]


def check_inplace(model, example):
    [write] = model.events.find("write", line=_last_line(example))
    assert write.storages == _value_after(model, example, "w").storages and write.detail["holders"] == ("w",)


def check_shares(model, example):
    result, w = _value_after(model, example, "r"), _value_after(model, example, "w")
    [alias] = [event for event in model.events.find("alias", line=_last_line(example)) if event.place in ("w", None)][-1:]
    assert result.storages == w.storages and alias.detail["made"] in result.made and not w.made


def check_index_cast(model, example):
    result = _value_after(model, example, "r")
    assert not result.made and not model.events.find("alias", line=_last_line(example))


def check_state_dict(model, example):
    result, m = _value_after(model, example, "r"), _value_after(model, example, "m")
    weights = result.item("*")
    assert weights.is_tensor and weights.storages == m.storages and weights.made and not result.storages & m.storages


def check_grad_off(model, example):
    result = _value_after(model, example, "r")
    assert result.is_tensor and not result.grad and not model.events.find("save") and "!saved" not in model.exit_state()
    after = build_model(ast.parse(example + "\nq = w * 2\n"))
    assert after.exit_state()["q"].grad  # the context ends with its block


def check_grad_off_decorator(model, example):
    assert not model.value_at(_last_line(example), "r").grad


def check_grad_switch(model, example):
    check_grad_off(model, example)


def check_grad_mode_test(model, example):
    assert not model.events.find("save")  # the branch where grad is off records nothing for backward
    assert build_model(ast.parse(example.replace("if not ", "if "))).events.find("save")


def _copies_in_flight_at_the_end(model, example) -> frozenset:
    last = _last_line(example)
    return frozenset().union(*(model.events.unsynced(event) for event in model.events.events if event.line == last))


def check_cuda_test(model, example):
    """A sync under the test covers the copy: where the test fails no copy is asynchronous."""
    assert not _copies_in_flight_at_the_end(model, example)
    guard = [line for line in example.splitlines() if line.startswith("if ")][0]
    flagged = example.replace(guard, "if flag:")  # a test of something else: the copy may still run
    assert _copies_in_flight_at_the_end(build_model(ast.parse(flagged)), flagged)


check_device_type = check_cuda_flag = check_cuda_test


def check_inference_mode_test(model, example):
    assert not model.events.find("save")
    assert build_model(ast.parse(example.replace("if torch.", "if not torch."))).events.find("save")


def check_grad_on(model, example):
    assert model.events.find("save")  # the sigmoid saves its output again where grad is on
    assert not build_model(ast.parse(example.replace("with torch.enable_grad():", "if True:"))).events.find("save")


def _facts(model, example, prefix):
    return [fact for fact in _value_after(model, example, "r").facts if fact.startswith(prefix)]


def check_overlapping(model, example):
    assert _facts(model, example, "overlapping:") and _value_after(model, example, "r").is_tensor


def check_multi_output_view(model, example):
    result, w = _value_after(model, example, "r"), _value_after(model, example, "w")
    assert _facts(model, example, "split:") and result.storages == w.storages and result.grad


def _write(model, example):
    [write] = model.events.find("write", line=_last_line(example))
    return write


def check_uniform_write(model, example):
    assert "uniform_write" in role_of("method", _write(model, example).detail["method"])


def check_overwrites(model, example):
    write = _write(model, example)
    assert write.storages == _value_after(model, example, "w").storages
    assert "overwrites" in role_of(write.detail["method"].startswith("torch.") and "function" or "method",
                                   write.detail["method"])


def check_unmasked_overlap(model, example):
    assert "unmasked_overlap" in role_of("method", _write(model, example).detail["method"])


def check_unversioned(model, example):
    assert "unversioned" in _value_after(model, example, "r").facts


def check_registers(model, example):
    result = _value_after(model, example, "r")
    assert result.is_tensor and result.storages


def check_rearrange(model, example):
    result, w = _value_after(model, example, "r"), _value_after(model, example, "w")
    assert _facts(model, example, "rearranged:") and result.storages == w.storages


def check_index_result(model, example):
    result = _value_after(model, example, "r")
    assert result.is_tensor and not result.grad and _value_after(model, example, "w").grad


def check_new_leaf(model, example):
    result = _value_after(model, example, "r")
    assert result.is_tensor and not result.grad and not result.graph and _value_after(model, example, "w").grad
    asked = build_model(ast.parse(example[:-1] + ", requires_grad=True)")).exit_state()["r"]  # ``randn_like(w, requires_grad=True)``
    assert asked.grad and not asked.graph


def check_values_indices(model, example):
    result = _value_after(model, example, "r")
    values = build_model(ast.parse(example + ".values\n")).exit_state()["r"]
    indices = build_model(ast.parse(example + "[1]\n")).exit_state()["r"]
    w = _value_after(model, example, "w")
    assert "tuple" in result.kinds and values.is_tensor and values.grad and not values.storages & w.storages
    assert indices.is_tensor and not indices.grad and "dtype:int64" in indices.facts
    assert not indices.storages & values.storages  # two tensors: writing the indices leaves the values


def check_values_indices_with_dim(model, example):
    check_values_indices(model, example)
    whole = build_model(ast.parse(example.replace("(0)", "()").replace(", 0)", ")"))).exit_state()["r"]
    elementwise = build_model(ast.parse(example.replace("(0)", "(w)").replace(", 0)", ", w)"))).exit_state()["r"]
    assert "tuple" not in whole.kinds and "tuple" not in elementwise.kinds


def check_requires_grad(model, example):
    result, w = _value_after(model, example, "r"), _value_after(model, example, "w")
    assert result.grad and not result.graph and w.grad and (result.storages == w.storages or result.fresh)


def check_constructs(model, example):
    result = _value_after(model, example, "r")
    assert result.kinds == {"tensor"} and not result.grad and result.evidence("kind").strong
    listed = build_model(ast.parse("import torch\nr = torch.tensor([1.0, 2.0], requires_grad=True)\n"))
    assert listed.exit_state()["r"].kinds == {"tensor"} and listed.exit_state()["r"].grad


def check_module_buffer(model, example):
    result = _value_after(model, example, "r")
    assert result.kinds == {"tensor"} and not result.grad and not result.fresh


def check_module_parameter(model, example):
    result, module = _value_after(model, example, "r"), _value_after(model, example, "m")
    again = model.value_at(_last_line(example), "m.weight" if "weight" in example else "m.bias")
    assert result.is_tensor and result.grad and not result.graph and result.storages == again.storages
    assert result.storages == module.storages  # the module's tensors (parameters(), what its optimizer steps)


def check_module_narrowing(model, example):
    assert model.value_at(_last_line(example), "m").kinds == {"module"}


def check_like_buffer(model, example):
    from flake8_tensorcopy.model.transfer import like_fact

    result, w = _value_after(model, example, "r"), _value_after(model, example, "w")
    assert like_fact("w", w) in result.facts and result.fresh and not result.storages & w.storages


def check_backpropagated(model, example):
    result = model.value_at(3, "r")
    assert result.is_tensor and result.grad and result.graph


def check_returns_tensor(model, example):
    result = _value_after(model, example, "r")
    assert result.is_tensor and result.grad and result.fresh


def check_loss(model, example):
    result = _value_after(model, example, "r")
    assert result.grad and result.evidence("grad").name == "LOSS"
    quiet = build_model(ast.parse(example.replace("r = ", "with torch.no_grad():\n    r = ")))
    assert not quiet.exit_state()["r"].grad


def check_full_reduction(model, example):
    from flake8_tensorcopy.model.transfer import ZERO_DIM

    assert ZERO_DIM in _value_after(model, example, "r").facts
    if "functional" not in example:  # a dim given: not 0-d
        along = build_model(ast.parse(example.replace("(w)", "(w, 0)").replace("()", "(0)")))
        assert ZERO_DIM not in along.exit_state()["r"].facts


def check_one_dim(model, example):
    from flake8_tensorcopy.model.transfer import ONE_DIM, ZERO_DIM

    assert ONE_DIM in _value_after(model, example, "r").facts
    row = build_model(ast.parse(example + "\nfor i in r:\n    q = i"))
    assert ZERO_DIM in row.exit_state()["q"].facts  # an item of a 1-d tensor: 0-d


def check_one_dim_alone(model, example):
    from flake8_tensorcopy.model.transfer import ONE_DIM

    check_one_dim(model, example)
    given = build_model(ast.parse(example.replace("()", "(0)")))
    assert ONE_DIM not in given.exit_state()["r"].facts  # ``w.flatten(0)``, ``w.unique(0)``: not said


def check_keeps_shape(model, example):
    from flake8_tensorcopy.model.transfer import ZERO_DIM

    assert ZERO_DIM in _value_after(model, example, "r").facts


def check_tensor_only(model, example):
    assert model.value_at(_last_line(example), "r").evidence("kind").name == "USE"


def check_blank(model, example):
    assert "blank" in _value_after(model, example, "r").facts
    assert "blank" not in build_model(ast.parse("import torch\nr = torch.rand(3)")).exit_state()["r"].facts


def check_array_constructor(model, example):
    result = _value_after(model, example, "r")
    assert result.kinds == {"ndarray"} and result.fresh and result.storages


def check_random_generator(model, example):
    check_array_constructor(model, example)  # ``g.random(3)``: what ``numpy.random.random(3)`` makes
    assert _value_after(model, example, "g").storages == frozenset()  # the generator holds no array


def check_array_elementwise(model, example):
    result, w = _value_after(model, example, "r"), _value_after(model, example, "w")
    assert result.kinds == {"ndarray"} and result.fresh and not result.storages & w.storages
    assert "dtype:float64" in result.facts  # ``numpy.ones(4)``'s dtype
    of_number = build_model(ast.parse(example.replace("(w", "(0.5")))
    assert of_number.exit_state()["r"].kinds != {"ndarray"}  # of a number: no array the model claims


def check_array_inplace(model, example):
    assert _write(model, example).storages == _value_after(model, example, "w").storages


def check_array_view(model, example):
    result, w = _value_after(model, example, "r"), _value_after(model, example, "w")
    assert result.kinds == {"ndarray"} and result.storages == w.storages and not result.fresh


def check_array_copy(model, example):
    result, w = _value_after(model, example, "r"), _value_after(model, example, "w")
    assert result.kinds == {"ndarray"} and result.fresh and not result.storages & w.storages
    if "astype" in example:  # ``copy=False``: the array itself where the type already fits
        kept = build_model(ast.parse(example.replace(")", ", copy=False)")))
        assert kept.exit_state()["r"].storages == kept.exit_state()["w"].storages


def check_custom_function(model, example):
    """``Scale.apply(w, 2.0)`` runs ``Scale.forward``: its output requires grad as ``w`` does, and
    ``w``, handed to ``ctx.save_for_backward``, is kept for that backward (not under no_grad)."""
    result, w = _value_after(model, example, "r"), _value_after(model, example, "w")
    assert result.is_tensor and result.grad
    [save] = model.events.find("save", line=_last_line(example))
    assert save.detail["storages"] == w.storages
    quiet = build_model(ast.parse(example.replace("r = ", "with torch.no_grad():\n    r = ")))
    assert not quiet.events.find("save", line=_last_line(example) + 1)
    assert not quiet.exit_state()["r"].grad


def check_autograd_apply(model, example):
    check_custom_function(model, example)
    kept = build_model(ast.parse(example.replace("r = Scale.apply(w, 2.0)", "f = Scale.apply\nr = f(w, 2.0)")))
    assert kept.events.find("save", line=_last_line(example) + 1)


def check_saves_for_backward(model, example):
    check_custom_function(model, example)
    unsaved = build_model(ast.parse(example.replace("ctx.save_for_backward(x)", "ctx.k = k")))
    assert not unsaved.events.find("save", line=_last_line(example))


def check_saves_arguments(model, example):
    result, w = _value_after(model, example, "r"), _value_after(model, example, "w")
    assert result.is_tensor and result.grad
    [save] = model.events.find("save", line=_last_line(example))
    assert save.detail["storages"] == w.storages  # the argument, not what sigmoid saves inside
    plain = build_model(ast.parse(example.replace("use_reentrant=True", "use_reentrant=False")))
    [inside] = plain.events.find("save", line=_last_line(example))
    assert inside.detail["what"] == "output"  # not reentrant: sigmoid's own save, of its output


@pytest.mark.parametrize("entry", HAND_TABLE, ids=[f"{entry.role}:{entry.name}" for entry in HAND_TABLE])
def test_each_entry_shows_its_role_in_its_fixture_line(entry):
    model = build_model(ast.parse(entry.example))
    globals()["check_" + entry.role](model, entry.example)


def test_a_method_only_tensors_have_is_evidence_that_an_unknown_receiver_is_a_tensor():
    model = build_model(ast.parse("def f(x):\n    y = x.unsqueeze(0)\n    return y\n"))
    x = model.value_at(3, "x")
    assert x.is_tensor and x.evidence("kind").name == "USE"
    plain = build_model(ast.parse("def f(x):\n    y = x.copy()\n    return y\n"))
    assert not plain.value_at(3, "x").is_tensor


def test_the_generated_tables_drive_views_and_saved_inputs():
    model = build_model(ast.parse(
        "import torch\nw = torch.ones(2, requires_grad=True)\nu = torch.ones(2, requires_grad=True)\n"
        "v = w.transpose(0, 1)\nm = torch.mul(w, u)\n"))
    state = model.exit_state()
    assert state["v"].storages == state["w"].storages and state["v"].graph
    assert state["w"].storages <= state["!saved"]  # torch.mul keeps its first input for u's gradient
    by_number = build_model(ast.parse("import torch\nw = torch.ones(2, requires_grad=True)\nm = torch.mul(w, 2)\n"))
    assert "!saved" not in by_number.exit_state()  # a number needs no gradient: nothing of w is kept


def test_the_generated_tables_drive_function_views_inplace_layers_and_unsaved_parameters():
    """``view_functions``: ``torch.flatten(w)`` is ``w``'s memory; ``layers_taking_inplace``: a
    layer built with ``inplace=True`` writes its input; ``layers_keeping_no_parameters``: an
    embedding lookup saves none of the layer's parameters (a linear layer saves its own)."""
    model = build_model(ast.parse(
        "import torch\nfrom torch import nn\nw = torch.ones(2, 2, requires_grad=True)\nf = torch.flatten(w)\n"
        "c = torch.cat([w, w])\ng = torch.sigmoid(w)\nout = nn.ReLU(inplace=True)(g)\nplain = nn.ReLU()(c)\n"))
    state = model.exit_state()
    assert state["f"].storages == state["w"].storages and state["c"].storages.isdisjoint(state["w"].storages)
    assert [event.line for event in model.events.find("write")] == [7]
    lookups = build_model(ast.parse(
        "import torch\nfrom torch import nn\nemb = nn.Embedding(4, 2)\nlin = nn.Linear(2, 2)\n"
        "e = emb(torch.tensor([1]))\n"))
    assert not lookups.exit_state()["emb"].storages & lookups.exit_state().get("!saved", frozenset())
    layered = build_model(ast.parse(
        "import torch\nfrom torch import nn\nlin = nn.Linear(2, 2)\no = lin(torch.ones(2, requires_grad=True))\n"))
    assert layered.exit_state()["lin"].storages <= layered.exit_state()["!saved"]


@pytest.mark.parametrize("name", sorted(RESULT_DTYPES))
def test_each_result_dtype_entry_gives_its_dtype_in_its_fixture_expression(name):
    dtype, expression = RESULT_DTYPES[name]
    model = build_model(ast.parse(f"import torch\nw = torch.ones(3)\nr = {expression}\n"))
    assert "dtype:" + dtype in model.exit_state()["r"].facts


# (source, the dtype the model knows for ``r``, or None for one it must not claim)
_DTYPE_RULES = [
    ("r = w > 0", "bool"),
    ("r = torch.arange(3)", "int64"),
    ("r = torch.arange(0, 1, 0.25)", "float32"),  # the default dtype, float32 where the file sets none
    ("r = torch.full((2,), 7)", "int64"),
    ("r = torch.full((2,), True)", "bool"),
    ("r = torch.full((2,), 7.0)", "float32"),
    ("r = torch.full((2,), fill)", None),
    ("r = torch.zeros(2)", "float32"),
    ("r = torch.zeros(2, dtype=torch.long)", "int64"),
    ("r = torch.tensor([[1, 2], [3, 4]])", "int64"),
    ("r = torch.tensor([1.0, 2.0])", "float32"),
    ("r = torch.tensor([1, -2.0])", "float32"),
    ("r = torch.tensor([1, scale])", None),
    ("r = torch.arange(3) + 1", "int64"),
    ("r = torch.arange(3) / 2", None),
    ("r = torch.arange(3) * 0.5", None),
    ("r = w.double() * 2", "float64"),
    ("r = w.half() + w.half()", "float16"),
    ("r = w.half() + w.float()", None),
    ("r = (w > 0) & (w < 1)", "bool"),
    ("r = (w > 0) + 1", None),
    ("r = w.to(torch.double)", "float64"),
    ("r = torch.eq(w, w, out=torch.zeros(3))", "float32"),  # the result is out, of the default dtype
    ("r = torch.arange(3).view(torch.float64)", "float64"),  # the same bytes read as another dtype
    ("r = torch.view_as_real(w.to(torch.complex64))", None),
    ("r = torch.arange(3) * 1j", None),  # complex
    ("r = torch.as_tensor(torch.arange(3), dtype=torch.float64)", "float64"),
]


@pytest.mark.parametrize("source, dtype", _DTYPE_RULES)
def test_the_model_claims_a_dtype_only_where_promotion_or_the_default_dtype_decides(source, dtype):
    model = build_model(ast.parse(f"import torch\nw = torch.ones(3)\n{source}\n"))
    facts = {fact for fact in model.exit_state()["r"].facts if fact.startswith("dtype:")}
    assert facts == ({"dtype:" + dtype} if dtype else set())


@pytest.mark.parametrize("source", ["r = torch.zeros(2)", "r = torch.tensor([1.0, 2.0])", "r = torch.full((2,), 7.0)",
                                    "r = torch.arange(0, 1, 0.25)"])
def test_a_file_setting_the_default_dtype_has_factories_of_no_known_dtype(source):
    model = build_model(ast.parse(f"import torch\n{source}\n"), default_dtype="")
    assert not [fact for fact in model.exit_state()["r"].facts if fact.startswith("dtype:")]


def test_what_the_module_passes_carries_its_dtype_and_numpy_arithmetic_keeps_float64():
    model = build_model(ast.parse(
        "import torch, numpy as np\ndef f(x, a):\n    return x, a\n"
        "f(torch.arange(3), np.zeros(3) + 1.0)\nf(torch.randperm(3), np.ones(2))\n"))
    entry = model.value_at(3, "x"), model.value_at(3, "a")
    assert ["dtype:int64" in entry[0].facts, "dtype:float64" in entry[1].facts] == [True, True]
    mixed = build_model(ast.parse("import torch\ndef f(x):\n    return x\nf(torch.arange(3))\nf(torch.ones(3))\n"))
    assert not [fact for fact in mixed.value_at(3, "x").facts if fact.startswith("dtype:")]
