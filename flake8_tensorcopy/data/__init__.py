"""Facts about torch, generated from torch by ``scripts/generate_torch_tables.py``.

The linter never imports torch (a user's flake8 run must stay fast and work without it), so
what it needs to know about torch's API is shipped here as data and loaded once per process.
"""

import json
from pathlib import Path

_TABLES = json.loads((Path(__file__).with_name("torch_tables.json")).read_text(encoding="utf-8"))

TORCH_VERSION = _TABLES["torch_version"]
FUNCTIONS_RETURNING_TENSOR = frozenset(_TABLES["functions_returning_tensor"])
FUNCTIONS_RETURNING_TENSOR_SEQUENCE = frozenset(_TABLES["functions_returning_tensor_sequence"])
METHODS_RETURNING_TENSOR = frozenset(_TABLES["tensor_methods_returning_tensor"])
METHODS_RETURNING_TENSOR_WITHOUT_ARGUMENTS = frozenset(
    _TABLES["tensor_methods_returning_tensor_without_arguments"]
)
METHODS_RETURNING_TENSOR_SEQUENCE = frozenset(_TABLES["tensor_methods_returning_tensor_sequence"])
ATTRIBUTES_RETURNING_TENSOR = frozenset(_TABLES["tensor_attributes_returning_tensor"])
INPLACE_METHODS = frozenset(_TABLES["inplace_methods"])
VIEW_METHODS = frozenset(_TABLES["view_methods"])
# ``torch.flatten(x)``: the function twins of view methods (and ``torch.detach``), as the method of their first argument
VIEW_FUNCTIONS = frozenset(_TABLES["view_functions"])
VIEW_ATTRIBUTES = frozenset(_TABLES["view_attributes"])
LEGACY_CONSTRUCTORS = frozenset(_TABLES["legacy_constructors"])


def _saved_for_backward(entries) -> dict:
    """``{"torch.sigmoid": ("output",), "torch.mul": (0, 1), "torch.Tensor.max": ("output",
    "indices", 0)}`` from ``name:output``, ``name:indices`` (the indices a reduction along a dim
    hands back) and ``name:N``."""
    saved: dict = {}
    for entry in entries:
        name, what = entry.rsplit(":", 1)
        saved[name] = saved.get(name, ()) + ((what,) if not what.isdigit() else (int(what),))
    return saved


# What an operation keeps for its backward: input positions and/or "output" (probed from torch).
SAVED_FOR_BACKWARD = _saved_for_backward(_TABLES["saved_for_backward"])
# torch.nn layers whose backward needs none of their parameters (probed: ``nn.Embedding``)
LAYERS_KEEPING_NO_PARAMETERS = frozenset(_TABLES["layers_keeping_no_parameters"])
# torch.nn layers whose constructor takes ``inplace``: built with ``inplace=True``, a call writes its input
LAYERS_TAKING_INPLACE = frozenset(_TABLES["layers_taking_inplace"])
# torch.nn layers that keep running statistics: a call in training mode writes their buffers in place
LAYERS_UPDATING_RUNNING_STATS = frozenset(_TABLES["layers_updating_running_stats"])
