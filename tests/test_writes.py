"""TEN209, TEN210, TEN307: what the detectors decide on shapes the fixtures do not pin, and the
measured torch behaviour their boundaries rest on (CPU here; CUDA runs where present)."""

import pytest

from flake8_tensorcopy.engine import lint_module, lint_source

torch = pytest.importorskip("torch")
DEVICES = [
    "cpu",
    pytest.param("cuda", marks=pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device")),
]
MODIFIED = "one of the variables needed for gradient computation has been modified by an inplace operation"


def codes(source: str):
    return [(finding.code, finding.line) for finding in lint_source(source)]


# ----- TEN209 -------------------------------------------------------------------------------


@pytest.mark.parametrize("device", DEVICES)
def test_a_chunk_of_a_graph_tensor_cannot_be_written(device):
    layer = torch.nn.Linear(4, 4).to(device)
    _, gate = layer(torch.randn(2, 4, device=device)).chunk(2, -1)
    with pytest.raises(RuntimeError, match="is a view and is being modified inplace"):
        gate.clamp_(min=0.0)


def test_a_chunk_written_under_no_grad_is_allowed_and_not_reported():
    w = torch.nn.Parameter(torch.zeros(8))
    with torch.no_grad():
        w.chunk(4)[1].fill_(1.0)
    assert w.tolist() == [0, 0, 1, 1, 0, 0, 0, 0]
    source = """import torch

def reset(w: torch.nn.Parameter):
    with torch.no_grad():
        w.chunk(4)[1].fill_(1.0)
    w.chunk(4)[2].fill_(1.0)
"""
    assert codes(source) == [("TEN209", 6)]


def test_fill_of_an_expanded_tensor_succeeds_and_is_not_reported():
    base = torch.zeros(3)
    base.expand(2, 3).fill_(1.0)
    assert base.tolist() == [1.0, 1.0, 1.0]
    source = """import torch

def ones(n: int):
    grid = torch.zeros(3).expand(n, 3)
    grid.fill_(1.0)
    grid.add_(1.0)
    return grid
"""
    assert codes(source) == [("TEN209", 6)]


def test_a_rebound_name_no_longer_holds_the_expanded_tensor():
    source = """import torch

def steps(n: int, start: torch.Tensor):
    grid = torch.arange(4).expand(n, 4)
    grid = grid.clone()
    grid += start
    return grid
"""
    assert codes(source) == []


# ----- TEN210 -------------------------------------------------------------------------------


def test_a_left_shift_of_several_rows_gives_the_intended_values_on_cpu():
    rows = torch.arange(24.0).reshape(2, 12)
    meant = torch.cat([rows[:, 3:], rows[:, 9:]], dim=1)
    rows[:, :-3] = rows[:, 3:]
    assert torch.equal(rows, meant)


def test_a_left_shift_of_whole_rows_raises_where_the_tensor_is_contiguous():
    for shape in ((6,), (6, 4)):
        rows = torch.arange(24.0)[: torch.Size(shape).numel()].reshape(shape)
        with pytest.raises(RuntimeError, match="refer to a single memory location"):
            rows[:-1] = rows[1:]
    apart = torch.arange(24.0).reshape(6, 4)
    apart[0:2] = apart[2:4]  # no position in common
    assert apart[0].tolist() == [8.0, 9.0, 10.0, 11.0]


@pytest.mark.parametrize("written, read, reported", [
    ("x[:, k:]", "x[:, :-k]", True),
    ("x[:, :-k]", "x[:, k:]", False),
    ("x[k:]", "x[:-k]", True),
    ("x[-k:]", "x[:k]", True),
    ("x[:k]", "x[-k:]", True),
    ("x[3:6]", "x[1:4]", True),
    ("x[1:4]", "x[3:6]", True),
    ("x[:-1]", "x[1:]", True),
    ("x[0:2]", "x[2:4]", False),
    ("x[::2, 1:]", "x[::2, :-1]", True),
    ("x[::2, 1:]", "x[1::2, :-1]", False),
    ("x[i]", "x[i].t()", True),
    ("x[i]", "x[j].t()", False),
    ("x[i, 1:]", "x[j, :-1]", False),
    ("x[1:]", "x[:-1].clone()", False),
    ("x[mask]", "x[:-1]", False),
])
def test_which_slice_pairs_are_reported(written, read, reported):
    source = f"""import torch

def shift(k: int, i: int, j: int, mask):
    x = torch.zeros(8, 8)
    {written} = {read}
    return x
"""
    assert codes(source) == ([("TEN210", 5)] if reported else [])


# ----- TEN307 -------------------------------------------------------------------------------


def test_a_write_under_no_grad_still_breaks_backward_and_is_reported():
    x = torch.randn(3, requires_grad=True)
    y = torch.sigmoid(x)
    with torch.no_grad():
        y.mul_(2.0)
    with pytest.raises(RuntimeError, match=MODIFIED):
        y.sum().backward()
    source = """import torch

def step(x: torch.nn.Parameter):
    y = torch.sigmoid(x)
    with torch.no_grad():
        y.mul_(2.0)
    y.sum().backward()
"""
    assert codes(source) == [("TEN307", 6)]


def test_through_data_backward_gives_wrong_gradients_silently():
    x = torch.linspace(-1.0, 1.0, 5, requires_grad=True)
    y = torch.exp(x)
    y.data.mul_(2.0)
    y.sum().backward()
    assert not torch.allclose(x.grad, torch.exp(x.detach()))


@pytest.mark.parametrize("device", DEVICES)
def test_a_convolution_saves_an_input_that_needs_no_gradient(device):
    conv = torch.nn.Conv1d(2, 2, 3, padding=1).to(device)
    frames = torch.randn(1, 2, 5, device=device)
    hidden = conv(frames)
    frames.masked_fill_(frames > 0, 0.0)
    with pytest.raises(RuntimeError, match=MODIFIED):
        hidden.sum().backward()


def test_the_write_must_come_before_a_backward_or_a_return():
    source = """import torch

def step(w: torch.nn.Parameter):
    y = torch.exp(w)
    y.add_(1.0)
    loss = y.sum()
    loss.backward()

def stats(w: torch.nn.Parameter):
    y = torch.exp(w)
    y.add_(1.0)
    print(float(y.sum()))
"""
    assert codes(source) == [("TEN307", 5)]


def test_an_operation_that_saves_its_input_makes_only_the_input_a_finding():
    source = """import torch

def logs(layer: torch.nn.Linear, x):
    h = layer(x)
    y = torch.log(h)
    y.add_(1.0)
    h.mul_(2.0)
    return y
"""
    assert codes(source) == [("TEN307", 7)]


def test_a_graph_is_followed_only_in_the_function_that_built_it():
    source = """import torch
import torch.nn.functional as F
from torch import nn

class Layer(nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(2, 2))

    def forward(self, x):
        out = F.linear(x, self.weight)
        return out

    def renormalize(self):
        self.weight.data.div_(2.0)
        return self.weight
"""
    # tensorcopy-fix parses every method (the flake8 face leaves the quiet forward out); the
    # .data write outside a forward/backward pair is TEN901's (TEN301 needs a graph it corrupts)
    assert [finding.code for finding in lint_module(source)[1]] == ["TEN901"]


def test_a_returned_prediction_carries_no_graph_to_the_caller():
    source = """import torch

def predict(model: torch.nn.Module, x):
    probs = torch.softmax(model(x), dim=-1)
    probs[:, 0] = 0.0
    return probs.argmax(dim=-1)

def keep(model: torch.nn.Module, x):
    probs = torch.softmax(model(x), dim=-1)
    probs[:, 0] = 0.0
    return {"probs": probs}
"""
    assert codes(source) == [("TEN307", 10)]


def test_what_the_model_follows_for_ten307_holds_in_torch():
    """The new fixture lines rest on these: an alias of a saved sigmoid output, a LayerNorm's
    input written by an inplace=True functional raise; dropout keeps no input (no error)."""
    logits = torch.nn.Parameter(torch.zeros(3))
    gates = torch.sigmoid(logits)
    scaled = gates
    scaled *= torch.ones(3)
    with pytest.raises(RuntimeError, match=MODIFIED):
        gates.sum().backward()
    norm = torch.nn.LayerNorm(3)
    hidden = torch.randn(2, 3)
    normed = norm(hidden)
    torch.nn.functional.relu(hidden, inplace=True)
    with pytest.raises(RuntimeError, match=MODIFIED):
        normed.sum().backward()
    drop = torch.nn.Dropout(0.1)
    spectrum = torch.randn(4, requires_grad=True) * 1.0
    dropped = drop(spectrum)
    spectrum.masked_fill_(spectrum > 0, 0.0)
    dropped.sum().backward()


def test_a_chunk_of_a_buffer_registered_in_init_and_a_helper_s_graph_rows_are_followed():
    source = """import torch
from torch import nn

class Gates(nn.Module):
    def __init__(self, width: int):
        super().__init__()
        self.register_buffer("base", torch.zeros(width).expand(2, width))
        self.weight = nn.Parameter(torch.ones(width))

    def forward(self, x: torch.Tensor):
        self.base.mul_(2.0)
        self.base.fill_(0.0)
        halves = self.weight.chunk(2)
        kept = halves
        kept[0].add_(1.0)
        return x

def rows(t: torch.Tensor):
    for row in t:
        row.mul_(2.0)
    return t

def caller(w: nn.Parameter):
    return rows(w * 1.0)
"""
    assert codes(source) == [("TEN209", 11), ("TEN209", 15), ("TEN209", 20)]


_REBOUND_AFTER_THE_GATE = {
    "nonlocal": ("""
        def put_back():
            nonlocal h
            h = skip

        put_back()""", ()),
    "match": ("""
        match skip:
            case h:
                pass""", ((3, 10),)),
    "helper": ("""
        put_back(self, "h", skip)""", ()),
    "setattr": ("""
        setattr(self, "h", skip)""", ()),
}


@pytest.mark.parametrize("how", sorted(_REBOUND_AFTER_THE_GATE))
def test_a_name_rebound_to_saved_memory_after_the_join_is_written_saved_memory(how):
    """After ``if gated: h = skip + gate(h)`` ``h`` holds the gate's saved input only where the
    gate did not run; code rebinding ``h`` to that input (a nested function, a ``match`` capture,
    a helper or ``setattr`` on an attribute) makes a write through it raise, and TEN307 says so."""
    import sys
    import textwrap

    rebinding, since = _REBOUND_AFTER_THE_GATE[how]
    if since and sys.version_info < since[0]:
        pytest.skip("needs a newer Python")
    h = "h" if how in ("nonlocal", "match") else "self.h"
    rebinding = textwrap.indent(textwrap.dedent(rebinding).strip("\n"), " " * 8)
    source = f"""import torch
from torch import nn

def put_back(owner, name, value):
    setattr(owner, name, value)

class Gated(nn.Module):
    def __init__(self):
        super().__init__()
        self.gate = nn.Linear(4, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        {h} = x + 1.0
        skip = {h}
        if x.shape[0] > 1:
            {h} = skip + self.gate({h})
        out = {h}
{rebinding}
        {h} *= 0.5
        return out + {h}
"""
    namespace: dict = {}
    exec(compile(source, "gated.py", "exec"), namespace)
    with pytest.raises(RuntimeError, match=MODIFIED):
        namespace["Gated"]()(torch.rand(2, 4, requires_grad=True)).sum().backward()
    written = source.splitlines().index(f"        {h} *= 0.5") + 1
    assert ("TEN307", written) in codes(source)


_FLAGGED_LAYER = """import torch
from torch import nn


class Bounded(nn.Module):
    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, x):
        return x.clamp_(0, 1) if self.inplace else x.clamp(0, 1)


class Gate(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)
        self.bound = Bounded()

    def forward(self, x):
        gate = torch.sigmoid(self.fc(x))
        return self.bound(gate) * gate
"""


@pytest.mark.parametrize("changed_by, reported", [
    ("", []),  # built with inplace=False and never changed: the forward copies
    ("\n\ndef make_it_write(gate: Gate):\n    gate.bound.inplace = True\n", [("TEN307", 22)]),
    ("\n\ndef configure(layer: Bounded, name: str):\n    setattr(layer, name, True)\n", [("TEN307", 22)]),
])
def test_a_flag_set_in_init_holds_for_the_instance_unless_the_file_may_change_it(changed_by, reported):
    """A flag stored elsewhere in the file (an attribute store, a ``setattr`` with a computed
    name) may be True by the call: the in-place branch counts again."""
    namespace = {}
    exec(_FLAGGED_LAYER, namespace)
    gate = namespace["Gate"]()
    gate(torch.randn(2, 4)).sum().backward()  # inplace=False: nothing raises
    gate.bound.inplace = True
    with pytest.raises(RuntimeError, match=MODIFIED):
        gate(torch.randn(2, 4)).sum().backward()
    assert codes(_FLAGGED_LAYER + changed_by) == reported
