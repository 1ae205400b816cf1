"""Grad provenance queried directly: may a name require grad at the end of a snippet, and is
it a leaf? (Module-level code, so the answers are the module scope's bindings.)"""

import libcst as cst
import pytest

from flake8_tensorcopy.analysis.provenance import find_backward_calls
from flake8_tensorcopy.analysis.scope import LEAF, MIXED, NON_LEAF, RETAINED
from flake8_tensorcopy.analysis.walker import Analysis
from flake8_tensorcopy.rules import ALL_RULES

PRELUDE = (
    "import torch\nimport torch.nn.functional as F\nfrom torch import nn\n"
    "model = nn.Linear(3, 1)\nw = torch.ones(3, requires_grad=True)\nx = torch.ones(3)\n"
)


def grad_after(body: str, name: str = "y"):
    analysis = Analysis(cst.parse_module(PRELUDE + body), ALL_RULES)
    analysis.run()
    return analysis.scope.names[name].grad


@pytest.mark.parametrize(
    "body, expected",
    [
        ("y = torch.zeros(3, requires_grad=True)\n", LEAF),
        ("y = torch.tensor([1.0], requires_grad=True)\n", LEAF),
        ("y = nn.Parameter(torch.ones(2))\n", LEAF),
        ("y = x.clone().requires_grad_()\n", LEAF),
        ("y = x.detach().requires_grad_(True)\n", LEAF),
        ("y = w\n", LEAF),
        ("y = model.weight\n", LEAF),
        ("for y in model.parameters():\n    pass\n", LEAF),
        ("for name, y in model.named_parameters():\n    pass\n", LEAF),
        ("y = w * 2\n", NON_LEAF),
        ("y = w.clone()\n", NON_LEAF),
        ("y = w.view(-1)\n", NON_LEAF),
        ("y = w[0]\n", NON_LEAF),
        ("y = w.float()\n", NON_LEAF),
        ("y = w.to('cpu')\n", NON_LEAF),
        ("y = model(x)\n", NON_LEAF),
        ("y = F.relu(model(x))\n", NON_LEAF),
        ("y = torch.cat([w, x])\n", NON_LEAF),
        ("y = w.T\n", NON_LEAF),
        ("y = w * 2\ny.retain_grad()\n", RETAINED),
        ("y = x\nif c:\n    y = w * 2\n", NON_LEAF),
        ("if c:\n    y = w\nelse:\n    y = w * 2\n", MIXED),
        ("y = 0.0\nfor i in range(3):\n    y += F.mse_loss(model(x), x)\n", NON_LEAF),
    ],
)
def test_requires_grad(body, expected):
    assert grad_after(body) == expected


@pytest.mark.parametrize(
    "body",
    [
        "y = x * 2\n",
        "y = w.detach()\n",
        "y = w.detach() * 2\n",
        "y = w.item()\n",
        "y = w.tolist()\n",
        "y = w.data\n",
        "y = torch.tensor([1.0, 2.0])\n",
        "y = w.new_tensor([1.0])\n",
        "y = torch.zeros(3, requires_grad=False)\n",
        "y = w.clone().requires_grad_(False)\n",
        "with torch.no_grad():\n    y = w * 2\n",
        "with torch.inference_mode():\n    y = model(x)\n",
        "y = w.sum().item()\n",
        "y = w * 2\ny = y.detach()\n",
    ],
)
def test_does_not_require_grad(body):
    """Known not to require grad (a typed "no", not merely unknown)."""
    assert grad_after(body).cannot_require


def test_self_attributes_of_a_module_class():
    source = PRELUDE + (
        "class Net(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.scale = nn.Parameter(torch.ones(1))\n"
        "        self.register_buffer('mean', torch.zeros(1))\n"
        "        self.fc = nn.Linear(3, 1)\n"
        "        self.cache = None\n"
        "    def forward(self, x):\n"
        "        self.cache = self.fc(x) * self.scale\n"
        "        return self.cache\n"
    )
    module = cst.parse_module(source)
    analysis = Analysis(module, ALL_RULES)
    analysis.run()  # binds the module's imports
    class_def = next(statement for statement in module.body if isinstance(statement, cst.ClassDef))
    attributes = analysis._instance_attributes(class_def)
    assert (attributes["scale"].kind, attributes["scale"].grad) == ("tensor", LEAF)
    assert (attributes["mean"].kind, attributes["mean"].grad.cannot_require) == ("tensor", True)
    assert attributes["fc"].kind == "module"
    assert attributes["cache"].grad == NON_LEAF


@pytest.mark.parametrize("expression", ["model(x).argmax(-1)", "(w > 0)", "w.eq(x)", "w.long()", "w.isnan()"])
def test_integer_and_boolean_results_do_not_require_grad(expression):
    assert grad_after(f"y = {expression}\n").cannot_require


def test_parameter_free_layer_passes_grad_through_only():
    assert grad_after("pad = nn.ZeroPad2d(1)\ny = pad(x)\n").cannot_require
    assert grad_after("pad = nn.ZeroPad2d(1)\ny = pad(w)\n") == NON_LEAF
    assert grad_after("act = nn.ReLU()\ny = act(x)\n").cannot_require
    assert grad_after("lin = nn.Linear(3, 3)\ny = lin(x)\n") == NON_LEAF


def test_no_grad_decorator_stops_grad_in_the_function_body(lint):
    source = (
        "import torch\nfrom torch import nn\n"
        "@torch.no_grad()\ndef predict(model: nn.Module, x: torch.Tensor):\n    return model(x).numpy()\n"
        "def unguarded(model: nn.Module, x: torch.Tensor):\n    return model(x).numpy()\n"
    )
    assert lint(source) == [(7, "TEN302")]


# --- the typed grad state: yes / no / unknown, leaf or not, with its evidence --------------


@pytest.mark.parametrize(
    "body",
    [
        "y = torch.zeros(3, dtype=torch.long)\n",
        "y = torch.arange(4).long()\n",
        "y = w.to(torch.int64)\n",
        "y = torch.randint(0, 4, (3,))\n",
        "y = w.argsort()\n",
        "y = model.state_dict()['weight']\n",
        "y = w.grad\n",
        "y = torch.ones(3)\ny.requires_grad = False\n",
    ],
)
def test_integer_tensors_gradients_and_state_cannot_require_grad(body):
    assert grad_after(body).cannot_require


@pytest.mark.parametrize("body", ["y = f(w)\n", "y = x\nif c:\n    y = f(x)\n", "def f(t):\n    pass\ny = f\n"])
def test_what_nothing_proves_stays_unknown(body):
    """Unknown is neither "may require grad" nor "cannot": no rule may rest on it either way."""
    state = grad_after(body)
    assert not state and not state.cannot_require


def test_requires_grad_set_by_assignment_or_method_makes_a_leaf():
    assert grad_after("y = torch.ones(3)\ny.requires_grad = True\n") == LEAF
    assert grad_after("y = torch.ones(3)\ny.requires_grad_()\n") == LEAF


def test_in_place_update_keeps_a_leaf_a_leaf():
    assert grad_after("y = torch.zeros(3, requires_grad=True)\nwith torch.no_grad():\n    y += x * 2\n") == LEAF


def test_evidence_is_worded_for_messages():
    assert grad_after("y = model(x)\n").evidence == "the output of a module, whose parameters require grad"
    assert grad_after("y = torch.zeros(3, dtype=torch.long)\n").evidence == "an integer or boolean tensor"
    assert grad_after("with torch.no_grad():\n    y = model(x)\n").evidence == "computed under torch.no_grad()"


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


BACKWARDS = """import torch


def outer(x, y, z):
    def inner():
        y.backward()
    loss = x * 2
    loss.backward()
    torch.autograd.grad(z, [x])
"""


def test_backward_calls_are_one_fact_per_function_from_one_walk():
    """Grad evidence reads a function's own receivers; TEN306 reads every name backward runs
    through, nested functions included, and the autograd calls resolved by the scope."""
    module = cst.parse_module(BACKWARDS)
    found, backpropagated = find_backward_calls(module)
    assert backpropagated == {}
    outer = module.body[1]
    inner = outer.body.body[0]
    assert found[id(outer)].receivers == {"loss"} and found[id(inner)].receivers == {"y"}
    assert found[id(outer)].reached == {"loss", "y"} and found[id(module)].reached == {"loss", "y"}
    assert [module.code_for_node(call.func) for call in found[id(outer)].function_calls] == ["torch.autograd.grad"]
    analysis = Analysis(module, ALL_RULES)
    analysis.run()  # binds the module's imports
    analysis._function = outer  # the query answers for the function being walked
    assert analysis.provenance.backward_receivers() == {"loss"}


def test_the_same_walk_finds_the_functions_whose_result_a_caller_backpropagates():
    _, backpropagated = find_backward_calls(cst.parse_module(
        "def train(x):\n    loss = compute(x)\n    loss.backward()\n    score(x).sum().backward()\n"
        "    kept = other(x)\n"))
    assert backpropagated == {"compute": "'train' calls loss.backward() on its result",
                              "score": "'train' calls backward() on its result"}
