"""The hand-kept knowledge table's torch facts, run on torch: what an entry claims holds."""

import pytest

from flake8_tensorcopy.knowledge import (
    DEFAULT_DTYPE, DEFAULT_DTYPE_FACTORIES, FLOAT64_ARRAYS, HAND_TABLE, INPLACE_ONLY_IN_TRAINING,
    LAYERS_UPDATING_RUNNING_STATS, LEGACY_DTYPES, METADATA_INPLACE, RESULT_DTYPES, RUNNING_STATISTICS,
)

torch = pytest.importorskip("torch")


def _distribution_entries(role: str):
    return [entry for entry in HAND_TABLE if entry.role == role]


@pytest.mark.parametrize("entry", _distribution_entries("reparameterized") + _distribution_entries("draw"),
                         ids=lambda entry: entry.name)
def test_what_a_distribution_computes_requires_grad_only_where_the_table_says(entry):
    mu = torch.zeros(3, requires_grad=True)
    point = torch.full((3,), 0.25)
    for dist in (torch.distributions.Normal(mu, 1.0), torch.distributions.Categorical(logits=mu)):
        if not hasattr(dist, entry.name) or (entry.name == "icdf" and type(dist).__name__ == "Categorical"):
            continue
        member = getattr(dist, entry.name)
        if entry.where == "method":
            argument = point if type(dist).__name__ == "Normal" else torch.tensor(1)
            try:
                member = member() if entry.name in ("rsample", "sample") else member(argument)
            except NotImplementedError:  # Categorical has no rsample or cdf
                continue
        assert member.requires_grad is (entry.role == "reparameterized"), (type(dist).__name__, entry.name)
    assert not torch.distributions.Normal(torch.zeros(3), 1.0).rsample().requires_grad  # parameters without grad


@pytest.mark.parametrize("constructor", sorted(name for name, dtype in LEGACY_DTYPES.items() if dtype != "bfloat16"))
def test_a_legacy_constructor_shares_an_array_of_its_dtype_and_copies_another(constructor):
    numpy = pytest.importorskip("numpy")
    make = getattr(torch, constructor.split(".", 1)[1])
    own = numpy.zeros(3, dtype=LEGACY_DTYPES[constructor])
    other = numpy.zeros(3, dtype="float64" if LEGACY_DTYPES[constructor] != "float64" else "float32")
    shared, copied = make(own), make(other)
    own[0], other[0] = 1, 1
    assert shared[0].item() == 1 and copied[0].item() == 0


def test_numpy_constructors_without_a_dtype_make_float64_arrays():
    numpy = pytest.importorskip("numpy")
    arguments = {"numpy.linspace": (0, 1, 3), "numpy.eye": (2,), "numpy.identity": (2,)}
    for qual in sorted(FLOAT64_ARRAYS):
        function = numpy
        for part in qual.split(".")[1:]:
            function = getattr(function, part)
        assert function(*arguments.get(qual, (2,))).dtype == numpy.float64, qual


@pytest.mark.parametrize("operation", ["mul", "matmul", "div"])
def test_an_operand_is_saved_only_for_the_gradient_of_the_other_where_the_table_says(operation):
    from flake8_tensorcopy.knowledge import SAVED_FOR_OTHER

    function = getattr(torch, operation)

    def backward_after_writing(operand: int, other_requires_grad: bool) -> bool:
        x = torch.ones(2, 2, requires_grad=True).clone()
        other = torch.full((2, 2), 2.0, requires_grad=other_requires_grad)
        result = function(x, other) if operand == 0 else function(other, x)
        x.mul_(3)
        try:
            result.sum().backward()
        except RuntimeError:
            return False
        return True

    for operand, needs in SAVED_FOR_OTHER["torch." + operation].items():
        assert needs == 1 - operand
        assert backward_after_writing(operand, other_requires_grad=False)  # not saved: the write is harmless
        assert not backward_after_writing(operand, other_requires_grad=True)  # saved for the other's gradient


def test_is_floating_point_holds_for_exactly_the_floating_dtypes_and_a_cast_across_copies():
    from flake8_tensorcopy.knowledge import CAST_DTYPES, DTYPES, FLOATING_DTYPES

    for name in sorted(DTYPES):
        assert torch.zeros(1, dtype=getattr(torch, name)).is_floating_point() is (name in FLOATING_DTYPES), name
    for method, cast in sorted(CAST_DTYPES.items()):
        for name in sorted(DTYPES):
            source = torch.zeros(2, dtype=getattr(torch, name))
            # a cast to another dtype than the tensor's is a new tensor; to its own dtype, the same one
            assert (getattr(source, method)() is source) is (name == cast), (method, name)


@pytest.mark.parametrize("layers", [("Linear", "Sigmoid"), ("Linear", "Tanh"), ("Linear", "Softmax"),
                                    ("Linear", "ReLU", "Linear"), ("ReLU", "Linear"), ("Sigmoid",)])
def test_a_sequential_keeps_its_input_where_its_first_layer_does_and_its_output_where_its_last_does(layers):
    from flake8_tensorcopy.knowledge import SAVED_FOR_BACKWARD, role_of

    assert "module_chain" in role_of("function", "torch.nn.Sequential")
    made = {"Linear": lambda: torch.nn.Linear(3, 3), "Softmax": lambda: torch.nn.Softmax(dim=-1)}
    chain = torch.nn.Sequential(*(made.get(name, getattr(torch.nn, name))() for name in layers))

    def backward_after_writing(which: str) -> bool:
        x = torch.ones(2, 3, requires_grad=True).clone()
        y = chain(x)
        (x if which == "input" else y).mul_(2)
        try:
            y.sum().backward()
        except RuntimeError:
            return False
        return True

    first, last = (SAVED_FOR_BACKWARD["torch.nn." + layers[index]] for index in (0, -1))
    assert backward_after_writing("input") is (0 not in first), layers
    assert backward_after_writing("output") is ("output" not in last), layers


def test_a_view_rearranged_onto_itself_raises_where_contiguous_and_is_silently_wrong_elsewhere():
    whole = torch.arange(9.0).reshape(3, 3)
    with pytest.raises(RuntimeError, match="refer to a single memory location"):
        whole[:] = whole.t()
    grid = torch.arange(16.0).reshape(4, 4)
    intended = grid[:2, :2].t().clone()
    grid[:2, :2] = grid[:2, :2].t()  # no error: the block is not contiguous
    assert not torch.equal(grid[:2, :2], intended)


def test_ids_of_two_temporaries_compared_in_one_expression_can_coincide_for_unrelated_tensors():
    first, second = torch.nn.Linear(3, 3), torch.nn.Linear(3, 3)
    same_id = id(first.weight.data) == id(second.weight.data)  # CPython reuses the freed first temporary's id
    same_memory = first.weight.data.untyped_storage().data_ptr() == second.weight.data.untyped_storage().data_ptr()
    assert same_id and not same_memory


def test_a_module_output_unpacked_into_names_is_a_tuple_of_tensors_a_masked_write_may_change():
    """The model gives each name of ``out, weights = attn(q, k, v)`` a tensor of its own: the
    layer returns a tuple (no rows of one tensor, which unbind() would make read-only)."""
    attn = torch.nn.MultiheadAttention(4, 2, batch_first=True)
    x = torch.randn(2, 3, 4, requires_grad=True)
    result = attn(x, x, x, need_weights=False)
    assert type(result) is tuple
    out, _ = result
    out[torch.tensor([[True, False, True], [False, True, False]])] = 0.0
    out.sum().backward()
    assert x.grad is not None
    rows = torch.nn.Linear(4, 4)(x)
    first, _ = rows[:2]
    with pytest.raises(RuntimeError, match="view and is being modified inplace"):
        first.mul_(2)


@pytest.mark.parametrize("size", [2, 3])
def test_a_new_unit_dim_broadcast_to_a_literal_size_makes_contiguous_copy(size):
    """The model's ``NONCONTIGUOUS`` fact: ``x.unsqueeze(-1).expand(x.shape + (k,))`` with ``k >= 2``
    has a stride-0 dim of size ``k``, so ``contiguous()`` copies; with ``k == 1`` it hands back
    the same memory (why a size the model cannot read proves nothing)."""
    x = torch.arange(6.0).reshape(2, 3)
    copied = x.unsqueeze(-1).expand(x.shape + (size,)).contiguous()
    assert copied.data_ptr() != x.data_ptr()
    copied.add_(1)
    assert x[0, 1].item() == 1.0
    same = x.unsqueeze(-1).expand(x.shape + (1,)).contiguous()
    assert same.data_ptr() == x.data_ptr()
    leading = x.unsqueeze(0).expand(size, 2, 3).contiguous()
    assert leading.data_ptr() != x.data_ptr()


def test_an_accumulator_on_an_object_keeps_the_graph_of_every_call_until_it_is_reset():
    """TEN306 across calls (the fixture's ``StepTrainer``): ``self.total += loss`` in a method
    that trains keeps each call's autograd graph reachable from the object, more with every
    call; the fixed form (``loss.detach()``) keeps none."""
    from conftest import FIXTURES

    def nodes(tensor) -> int:
        seen, stack = set(), [tensor.grad_fn]
        while stack:
            node = stack.pop()
            if node is None or node in seen:
                continue
            seen.add(node)
            stack.extend(next_node for next_node, _ in node.next_functions)
        return len(seen)

    for fixture, grows in (("TEN306.py", True), ("TEN306.fixed.py", False)):
        namespace: dict = {}
        exec(compile((FIXTURES / fixture).read_text(encoding="utf-8"), fixture, "exec"), namespace)
        model = torch.nn.Linear(4, 1)
        trainer = namespace["StepTrainer"](model, torch.optim.SGD(model.parameters(), lr=0.1))
        counts = []
        for _ in range(3):
            trainer.step(torch.rand(2, 4), torch.rand(2, 1))
            counts.append(nodes(trainer.total))
        assert (counts[0] < counts[1] < counts[2]) is grows and (counts == [0, 0, 0]) is not grows, (fixture, counts)


@pytest.mark.parametrize("name", sorted(RESULT_DTYPES))
def test_a_result_dtype_entry_holds_whatever_its_operands_dtype(name):
    dtype, expression = RESULT_DTYPES[name]
    for operand in (torch.float32, torch.float64):
        result = eval(expression, {"torch": torch, "w": torch.rand(3, dtype=operand)})
        assert result.dtype == getattr(torch, dtype), (name, operand)


def test_the_dtype_rules_of_the_model_hold_on_torch():
    """What ``result_dtype``, ``_data_dtype`` and ``_arithmetic_dtype`` claim (test_model_knowledge's
    ``_DTYPE_RULES``), run."""
    from tests.test_model_knowledge import _DTYPE_RULES

    for source, dtype in _DTYPE_RULES:
        scope = {"torch": torch, "w": torch.ones(3), "fill": 7, "scale": 2}  # names of values the model cannot see
        exec(source, scope)
        if dtype is not None:
            assert scope["r"].dtype == getattr(torch, dtype), source


@pytest.mark.parametrize("layer", sorted(LAYERS_UPDATING_RUNNING_STATS))
def test_a_layer_keeping_running_statistics_holds_the_buffers_the_model_writes(layer):
    module = getattr(torch.nn, layer.rsplit(".", 1)[1])(3)
    assert {name for name, _ in module.named_buffers()} == RUNNING_STATISTICS


@pytest.mark.parametrize("entry", [entry for entry in HAND_TABLE if entry.role.startswith("values_indices")],
                         ids=lambda entry: f"{entry.where}:{entry.name}")
def test_a_values_indices_entry_returns_values_in_the_graph_and_int64_indices(entry):
    scope: dict = {}
    exec(entry.example, scope)
    result, w = scope["r"], scope["w"]
    assert result.values is result[0] and result.indices is result[1]
    assert result.values.requires_grad and result.values.data_ptr() != w.data_ptr()
    assert result.indices.dtype == torch.int64 and not result.indices.requires_grad


_METADATA_CALLS = {"t_": (), "transpose_": (0, 1), "swapdims_": (0, 1), "swapaxes_": (0, 1), "squeeze_": (),
                   "unsqueeze_": (0,), "as_strided_": ((3, 1), (1, 1))}


@pytest.mark.parametrize("method", sorted(METADATA_INPLACE))
def test_a_metadata_inplace_method_keeps_the_values_and_counts_as_a_write_for_autograd(method):
    x = torch.arange(3.0).reshape(3, 1)
    before, version = x.flatten().tolist(), x._version
    getattr(x, method)(*_METADATA_CALLS[method])
    assert sorted(x.flatten().tolist()) == before and x._version == version + 1


@pytest.mark.parametrize("factory", sorted(DEFAULT_DTYPE_FACTORIES))
def test_a_default_dtype_factory_makes_the_default_dtype_whatever_it_is(factory):
    expression = DEFAULT_DTYPE_FACTORIES[factory] + ", " + ", ".join(
        ("torch.tensor([1.0, -2])", "torch.full((2,), 7.0)", "torch.arange(0, 1, 0.25)"))
    assert {result.dtype for result in eval(expression, {"torch": torch})} == {getattr(torch, DEFAULT_DTYPE)}
    previous = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    try:
        assert {result.dtype for result in eval(expression, {"torch": torch})} == {torch.float64}
    finally:
        torch.set_default_dtype(previous)


def test_a_loader_with_the_default_collate_yields_tensors_for_numbers_arrays_and_tensors():
    """``collating_loader``: every number, array and tensor of a batch is a tensor, in tuples and
    dicts alike (not with ``batch_size=None``, nor a ``collate_fn`` of one's own)."""
    from torch.utils.data import DataLoader

    numpy = pytest.importorskip("numpy")
    items = [(numpy.ones(2, dtype=numpy.float32), 1, 0.5, torch.zeros(2)),
             (numpy.zeros(2, dtype=numpy.float32), 2, 1.5, torch.ones(2))]
    for batch in DataLoader(items, batch_size=2):
        assert all(type(part) is torch.Tensor for part in batch)
    records = [{"x": numpy.ones(2), "y": 3}] * 2
    for batch in DataLoader(records, batch_size=2):
        assert all(type(part) is torch.Tensor for part in batch.values())
    for _, label, _, _ in DataLoader(items, batch_size=None):
        assert type(label) is int
    for batch in DataLoader(items, batch_size=2, collate_fn=list):
        assert type(batch[0][1]) is int


def test_meshgrid_repeats_each_input_at_many_positions_so_an_inplace_write_raises():
    """``overlapping_each``: each grid is its input's memory with stride 0 along the others."""
    rows, columns = torch.arange(3.0), torch.arange(4.0)
    for indexing in ("ij", "xy"):
        grids = torch.meshgrid(rows, columns, indexing=indexing)
        assert [grid.data_ptr() for grid in grids] == [rows.data_ptr(), columns.data_ptr()]
        for grid in grids:
            assert 0 in grid.stride()
            with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
                grid.add_(1)


@pytest.mark.parametrize("entry", [entry for entry in HAND_TABLE if entry.role == "overwrites"],
                         ids=lambda entry: entry.name)
def test_an_overwriting_write_sets_every_element_whatever_they_held(entry):
    """What the write leaves does not depend on what the tensor held: the same seed gives the
    same values after it from two different starting contents."""
    results = []
    for start in (1.0, -7.0):
        torch.manual_seed(0)
        scope = {}
        exec(entry.example.replace("torch.ones(", "(%r * torch.ones(" % start, 1).replace(
            "requires_grad=True)", "requires_grad=True))", 1), scope)
        results.append(scope["r"].clone())
    assert torch.equal(results[0], results[1]), entry.name


@pytest.mark.parametrize("entry", [entry for entry in HAND_TABLE if entry.role == "new_leaf"], ids=lambda entry: entry.name)
def test_a_new_leaf_factory_requires_grad_only_where_asked_whatever_its_argument_requires(entry):
    made = {}
    exec(entry.example, made)
    assert made["w"].requires_grad and not made["r"].requires_grad and made["r"].grad_fn is None
    exec(entry.example[:-1] + ", requires_grad=True)", made)
    assert made["r"].requires_grad and made["r"].grad_fn is None


@pytest.mark.parametrize("qual", sorted(INPLACE_ONLY_IN_TRAINING))
def test_an_inplace_dropout_writes_its_input_in_training_only(qual):
    layer = getattr(torch.nn, qual.rpartition(".")[2])(0.5, inplace=True)
    x = torch.randn(*{"1d": (2, 3, 4), "3d": (2, 3, 4, 4, 4)}.get(qual[-2:], (2, 3, 4, 4)))
    kept = x.clone()
    layer.eval()(x)
    assert torch.equal(x, kept)  # eval: handed back untouched
    layer.train()(x)
    assert not torch.equal(x, kept)  # training: written in place
