"""Grad provenance queried directly: may a name require grad at the end of a snippet, and is
it a leaf? (Module-level code, so the answers are the module scope's bindings.)"""

import libcst as cst
import pytest

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
    assert grad_after(body) is None


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
    assert (attributes["mean"].kind, attributes["mean"].grad) == ("tensor", None)
    assert attributes["fc"].kind == "module"
    assert attributes["cache"].grad == NON_LEAF


@pytest.mark.parametrize("expression", ["model(x).argmax(-1)", "(w > 0)", "w.eq(x)", "w.long()", "w.isnan()"])
def test_integer_and_boolean_results_do_not_require_grad(expression):
    assert grad_after(f"y = {expression}\n") is None


def test_parameter_free_layer_passes_grad_through_only():
    assert grad_after("pad = nn.ZeroPad2d(1)\ny = pad(x)\n") is None
    assert grad_after("pad = nn.ZeroPad2d(1)\ny = pad(w)\n") == NON_LEAF
    assert grad_after("act = nn.ReLU()\ny = act(x)\n") is None
    assert grad_after("lin = nn.Linear(3, 3)\ny = lin(x)\n") == NON_LEAF


def test_no_grad_decorator_stops_grad_in_the_function_body(lint):
    source = (
        "import torch\nfrom torch import nn\n"
        "@torch.no_grad()\ndef predict(model: nn.Module, x: torch.Tensor):\n    return model(x).numpy()\n"
        "def unguarded(model: nn.Module, x: torch.Tensor):\n    return model(x).numpy()\n"
    )
    assert lint(source) == [(7, "TEN302")]
