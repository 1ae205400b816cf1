#!/usr/bin/env python3
"""Derive facts about the torch API from the installed torch and ship them as JSON.

The linter must never import torch at lint time, so whatever it needs to know
(which calls return a Tensor, which methods alias their input, ...) is computed
here once and committed as flake8_tensorcopy/data/torch_tables.json.  Return
types come from the stubs torch ships (parsed with ``ast``; functions are not
called to find them); aliasing facts are measured on small tensors.  Run with
``--check`` in CI to notice drift after a torch upgrade.

Usage:
    python scripts/generate_torch_tables.py          # rewrite the JSON
    python scripts/generate_torch_tables.py --check  # exit 1 if it is stale
"""

from __future__ import annotations

import argparse
import ast
import importlib
import inspect
import json
import sys
import types
import warnings
from pathlib import Path
from typing import Any

OUTPUT = (
    Path(__file__).resolve().parent.parent
    / "flake8_tensorcopy"
    / "data"
    / "torch_tables.json"
)

FUNCTION_NAMESPACES = (
    "torch",
    "torch.nn.functional",
    "torch.linalg",
    "torch.fft",
    "torch.special",
)

# Annotations meaning "a Tensor" in torch's own stubs and in runtime signatures.
TENSOR_ANNOTATIONS = frozenset({"Tensor", "torch.Tensor", "Self"})
# Containers whose subscript lists element types: tuple[Tensor, ...], list[Tensor].
SEQUENCE_CONTAINERS = frozenset({"tuple", "Tuple", "list", "List", "Sequence"})

# Factories the lint relies on most; kept even if a stub stops annotating them,
# but only after a real call proves that they return a Tensor.
FACTORY_SAMPLES = {
    "torch.tensor": lambda torch: torch.tensor([0.0]),
    "torch.as_tensor": lambda torch: torch.as_tensor([0.0]),
    "torch.asarray": lambda torch: torch.asarray([0.0]),
    "torch.from_numpy": lambda torch: torch.from_numpy(
        importlib.import_module("numpy").zeros(1)
    ),
    "torch.frombuffer": lambda torch: torch.frombuffer(
        bytearray(4), dtype=torch.float32
    ),
}

# In-place methods that never write tensor data: they toggle autograd/sharing
# flags or only reinterpret the same storage with a new shape/stride/name, so a
# value held through an alias cannot change.  (retain_grad has no trailing "_"
# and is never a candidate; rename_ is gone from recent torch but listed for
# older ones.)  resize_, resize_as_, sparse_resize_* and set_ stay in: they
# reallocate, clear or rebind the storage the tensor reads from.
METADATA_ONLY_INPLACE = frozenset(
    {
        "as_strided_",
        "detach_",
        "rename_",
        "requires_grad_",
        "share_memory_",
        "squeeze_",
        "swapaxes_",
        "swapdims_",
        "t_",
        "transpose_",
        "unsqueeze_",
    }
)

LEGACY_TYPES = (
    "FloatTensor",
    "DoubleTensor",
    "HalfTensor",
    "BFloat16Tensor",
    "ByteTensor",
    "CharTensor",
    "ShortTensor",
    "IntTensor",
    "LongTensor",
    "BoolTensor",
)

# Attribute-style views, read on a complex tensor so that real/imag exist and
# H/mH exercise the conjugate view.
VIEW_ATTRIBUTES = ("T", "mT", "H", "mH", "real", "imag")


def _view_samples(torch: Any) -> dict:
    """Candidate view methods -> (args, kwargs) for a contiguous 4x6 float tensor.

    detach is deliberately absent: it shares storage too, but the linter
    handles it with its own rule.
    """
    return {
        "adjoint": ((), {}),
        "as_strided": (((2, 2), (1, 1)), {}),
        "broadcast_to": (((2, 4, 6),), {}),
        "conj": ((), {}),
        "positive": ((), {}),
        "chunk": ((2,), {}),
        "diagonal": ((), {}),
        "expand": ((2, 4, 6), {}),
        "expand_as": ((torch.empty(2, 4, 6),), {}),
        "flatten": ((), {}),
        "hsplit": ((2,), {}),
        "moveaxis": ((0, 1), {}),
        "movedim": ((0, 1), {}),
        "narrow": ((0, 1, 2), {}),
        "permute": ((1, 0), {}),
        "ravel": ((), {}),
        "reshape": ((6, 4), {}),
        "reshape_as": ((torch.empty(6, 4),), {}),
        "select": ((0, 1), {}),
        "split": ((2,), {}),
        "split_with_sizes": (([1, 3],), {}),
        "squeeze": ((), {}),
        "swapaxes": ((0, 1), {}),
        "swapdims": ((0, 1), {}),
        "t": ((), {}),
        "tensor_split": ((2,), {}),
        "transpose": ((0, 1), {}),
        "unbind": ((), {}),
        "unflatten": ((1, (2, 3)), {}),
        "unfold": ((1, 2, 2), {}),
        "unsqueeze": ((0,), {}),
        "view": ((6, 4), {}),
        "view_as": ((torch.empty(6, 4),), {}),
        "vsplit": ((2,), {}),
    }


def _members(body: list) -> tuple[dict, dict]:
    """Map name -> overload return annotations, and name -> attribute type.

    Properties count as attributes, not methods; setters/deleters are skipped.
    """
    methods: dict = {}
    attributes: dict = {}
    for node in body:
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            attributes[node.target.id] = node.annotation
        elif isinstance(node, ast.FunctionDef):
            decorators = {ast.unparse(d) for d in node.decorator_list}
            if "property" in decorators:
                attributes[node.name] = node.returns
            elif not any(d.endswith((".setter", ".deleter")) for d in decorators):
                methods.setdefault(node.name, []).append(node.returns)
    return methods, attributes


class _Stub:
    """Return annotations declared by one .pyi file."""

    def __init__(self, path: Path) -> None:
        self.tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        # TypeVars bound to Tensor (e.g. ``S`` in as_subclass) mean "a Tensor".
        self.tensor_names = TENSOR_ANNOTATIONS | {
            node.targets[0].id
            for node in self.tree.body
            if isinstance(node, ast.Assign)
            and isinstance(node.targets[0], ast.Name)
            and isinstance(node.value, ast.Call)
            and ast.unparse(node.value.func).endswith("TypeVar")
            and any(
                kw.arg == "bound" and ast.unparse(kw.value) in TENSOR_ANNOTATIONS
                for kw in node.value.keywords
            )
        }
        self.functions, _ = _members(self.tree.body)

    def class_members(self, class_name: str) -> tuple[dict, dict]:
        """Methods and attributes declared in the body of one class."""
        (cls,) = [
            node
            for node in self.tree.body
            if isinstance(node, ast.ClassDef) and node.name == class_name
        ]
        return _members(cls.body)


class _Classifier:
    """Sorts return annotations into "tensor", "sequence" (of tensors) or None."""

    def __init__(self, named_tuples: frozenset) -> None:
        # torch.return_types.* classes whose fields are all Tensors.
        self.named_tuples = named_tuples

    def kind(self, node: ast.expr | None, tensor_names: frozenset) -> str | None:
        """Classify one stub annotation; ``tensor_names`` spell "a Tensor"."""
        if node is None:
            return None
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return self.kind(ast.parse(node.value, mode="eval").body, tensor_names)
        dotted = ast.unparse(node)
        if dotted in tensor_names:
            return "tensor"
        prefix, _, last = dotted.rpartition(".")
        if prefix in ("torch.return_types", "return_types"):
            return "sequence" if last in self.named_tuples else None
        if (
            isinstance(node, ast.Subscript)
            and ast.unparse(node.value).rpartition(".")[2] in SEQUENCE_CONTAINERS
        ):
            elements = (
                node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            )
            elements = [
                e
                for e in elements
                if not (isinstance(e, ast.Constant) and e.value is Ellipsis)
            ]
            if elements and all(
                self.kind(e, tensor_names) == "tensor" for e in elements
            ):
                return "sequence"
        return None

    def runtime_kind(self, annotation: Any) -> str | None:
        """Classify an ``inspect.signature`` return annotation (object or string)."""
        if annotation is inspect.Signature.empty:
            return None
        if isinstance(annotation, str):
            text = annotation
        elif isinstance(annotation, type):
            text = annotation.__module__ + "." + annotation.__qualname__
        else:
            text = repr(annotation)  # typing generics, e.g. "tuple[torch.Tensor, ...]"
        try:
            node = ast.parse(text, mode="eval").body
        except SyntaxError:
            return None
        return self.kind(node, TENSOR_ANNOTATIONS)

    def optional_tensor(self, node: ast.expr | None, tensor_names: frozenset) -> bool:
        """True for ``Tensor``, ``Tensor | None`` and ``Optional[Tensor]``."""
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
            non_none = [
                side
                for side in (node.left, node.right)
                if not (isinstance(side, ast.Constant) and side.value is None)
            ]
            return (
                len(non_none) == 1
                and self.kind(non_none[0], tensor_names) == "tensor"
            )
        if (
            isinstance(node, ast.Subscript)
            and ast.unparse(node.value).rpartition(".")[2] == "Optional"
        ):
            return self.kind(node.slice, tensor_names) == "tensor"
        return self.kind(node, tensor_names) == "tensor"


def _single_kind(kinds: list) -> str | None:
    """The kind shared by every overload, else None.

    A callable with mixed overloads (torch.max: Tensor for ``max(x)``, a named
    tuple for ``max(x, dim)``) belongs to neither list: the linter cannot tell
    from the call alone which one it gets.
    """
    distinct = set(kinds)
    return distinct.pop() if len(distinct) == 1 else None


def _schema_kind(torch: Any, schema: Any) -> str | None:
    """Classify a TorchScript operator schema's returns."""
    returns = [r.type for r in schema.returns]
    if len(returns) == 1 and isinstance(returns[0], torch._C.TensorType):
        return "tensor"
    if (
        len(returns) == 1
        and isinstance(returns[0], torch._C.ListType)
        and isinstance(returns[0].getElementType(), torch._C.TensorType)
    ):
        return "sequence"
    if len(returns) > 1 and all(isinstance(t, torch._C.TensorType) for t in returns):
        return "sequence"
    return None


class _Resolver:
    """Finds the declared return kinds of runtime callables."""

    def __init__(self, torch: Any) -> None:
        self.torch = torch
        self.root = Path(torch.__file__).resolve().parent
        self.stubs: dict = {}
        # A named tuple qualifies when its stub base is e.g. tuple[Tensor, Tensor].
        bare = _Classifier(frozenset())
        self.classifier = _Classifier(
            frozenset(
                node.name
                for node in self.stub("torch.return_types").tree.body
                if isinstance(node, ast.ClassDef)
                and node.bases
                and bare.kind(node.bases[0], TENSOR_ANNOTATIONS) == "sequence"
            )
        )

    def stub(self, module_name: str) -> _Stub | None:
        """The parsed .pyi shipped for a torch module, or None if it has none."""
        if module_name not in self.stubs:
            head, _, rest = module_name.partition(".")
            found = None
            if head == "torch" and rest:
                base = self.root.joinpath(*rest.split("."))
                for path in (base.parent / (base.name + ".pyi"), base / "__init__.pyi"):
                    if path.is_file():
                        found = _Stub(path)
                        break
            self.stubs[module_name] = found
        return self.stubs[module_name]

    def stub_kinds(self, stub: _Stub, returns: list) -> list:
        """Classify return annotations taken from ``stub``."""
        return [self.classifier.kind(r, stub.tensor_names) for r in returns]

    def function_kinds(self, obj: Any) -> list:
        """Return kinds of every overload of a module-level callable."""
        torch = self.torch
        if isinstance(obj, types.BuiltinFunctionType):
            if isinstance(obj.__self__, types.ModuleType):
                owner = obj.__self__.__name__
            elif getattr(torch._C._VariableFunctions, obj.__name__, None) is obj:
                owner = "torch._C._VariableFunctions"
            else:
                return []
            stub = self.stub(owner)
            if stub is not None:
                return self.stub_kinds(stub, stub.functions.get(obj.__name__, []))
            # No .pyi for this module (torch 2.13: _linalg, _fft, _special); its
            # builtins are ATen operators whose TorchScript schemas list the
            # same overloads, out= variants included.
            return [
                _schema_kind(torch, s)
                for s in torch._C._jit_get_schemas_for_operator("aten::" + obj.__name__)
            ]
        if inspect.isfunction(obj):
            stub = self.stub(obj.__module__)
            if stub is not None and obj.__name__ in stub.functions:
                return self.stub_kinds(stub, stub.functions[obj.__name__])
            try:
                annotation = inspect.signature(obj).return_annotation
            except (TypeError, ValueError):
                return []
            return [self.classifier.runtime_kind(annotation)]
        return []


def _functions(torch: Any, resolver: _Resolver) -> dict:
    """Qualified public callables of FUNCTION_NAMESPACES, grouped by kind."""
    found: dict = {"tensor": set(), "sequence": set()}
    for namespace in FUNCTION_NAMESPACES:
        module = importlib.import_module(namespace)
        for name in dir(module):
            if name.startswith("_"):
                continue
            kind = _single_kind(resolver.function_kinds(getattr(module, name)))
            if kind is not None:
                found[kind].add(namespace + "." + name)
    for qualname, sample in FACTORY_SAMPLES.items():
        if isinstance(sample(torch), torch.Tensor):
            found["tensor"].add(qualname)
    return found


def _tensor_members(torch: Any, resolver: _Resolver) -> tuple[dict, set]:
    """Public Tensor methods grouped by kind, and Tensor-typed attributes."""
    stub = resolver.stub("torch._C")
    methods, attributes = stub.class_members("TensorBase")
    found: dict = {"tensor": set(), "sequence": set()}
    for name in dir(torch.Tensor):
        if name.startswith("_"):
            continue
        kinds = resolver.stub_kinds(stub, methods.get(name, []))
        python = torch.Tensor.__dict__.get(name)
        if inspect.isfunction(python):
            # torch/_tensor.py overrides; an unannotated one delegates to the
            # TensorBase implementation, whose stub then still describes it.
            annotation = inspect.signature(python).return_annotation
            if annotation is not inspect.Signature.empty:
                kinds = [resolver.classifier.runtime_kind(annotation)]
        kind = _single_kind(kinds)
        if kind is not None:
            found[kind].add(name)
    tensor_attributes = {
        name
        for name, annotation in attributes.items()
        if not name.startswith("_")
        and hasattr(torch.Tensor, name)
        and resolver.classifier.optional_tensor(annotation, stub.tensor_names)
    }
    return found, tensor_attributes


# Methods never probed by calling them: they act on autograd, memory or devices.
NOT_PROBED = frozenset(
    {"backward", "cuda", "pin_memory", "record_stream", "register_hook",
     "register_post_accumulate_grad_hook", "retain_grad", "share_memory_", "tolist",
     "item", "numpy", "storage", "untyped_storage", "xpu", "mps", "ipu", "mtia"}
)


def _zero_argument_methods(torch: Any, always_tensor: set) -> set:
    """Methods whose call without arguments returns a Tensor (``x.max()``, ``x.norm()``).

    Their other overloads may return tuples (``x.max(dim)``) and some have no annotation
    at all (``norm``), so this is measured on a small tensor instead of read from stubs.
    """
    found = set()
    for name in dir(torch.Tensor):
        if name.startswith("_") or name.endswith("_") or name in always_tensor or name in NOT_PROBED:
            continue
        x = torch.arange(1.0, 7.0).reshape(2, 3)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                result = getattr(x, name)()
        except Exception:  # the method needs arguments, or not this dtype/device
            continue
        if type(result) is torch.Tensor:
            found.add(name)
    return found


def _aliases(torch: Any, result: Any, base: Any) -> bool:
    """True if ``result`` (or every tensor it holds) is a view of ``base``."""
    results = result if isinstance(result, (tuple, list)) else (result,)
    storage = base.untyped_storage().data_ptr()
    return bool(results) and all(
        isinstance(r, torch.Tensor)
        and (
            (r._is_view() and r._base is base)
            or r.untyped_storage().data_ptr() == storage
        )
        for r in results
    )


def _views(torch: Any) -> tuple[set, set]:
    """View methods and view attributes, measured on small fresh tensors."""
    methods = set()
    for name, (args, kwargs) in _view_samples(torch).items():
        if hasattr(torch.Tensor, name):
            x = torch.arange(24.0).reshape(4, 6)
            if _aliases(torch, getattr(x, name)(*args, **kwargs), x):
                methods.add(name)
    attributes = set()
    for name in VIEW_ATTRIBUTES:
        if hasattr(torch.Tensor, name):
            real = torch.arange(24.0).reshape(4, 6)
            z = torch.complex(real, real)
            if _aliases(torch, getattr(z, name), z):
                attributes.add(name)
    return methods, attributes


def _view_functions(torch: Any, view_methods: set) -> set:
    """``torch.<name>`` twins of view methods (and of ``detach``) that return a view of their
    first argument as the method does of its receiver: ``torch.flatten(x)`` is ``x.flatten()``."""
    samples = _view_samples(torch)
    # the function forms that take a shape or dims as one tuple
    samples.update({"detach": ((), {}), "permute": (((1, 0),), {}), "reshape": (((6, 4),), {})})
    functions = set()
    # functions with no method twin that hand back their argument or a view of it
    samples.update({"atleast_1d": ((), {}), "atleast_2d": ((), {}), "atleast_3d": ((), {})})
    for name in sorted(view_methods | {"detach", "atleast_1d", "atleast_2d", "atleast_3d"}):
        function = getattr(torch, name, None)
        if not callable(function) or name not in samples:
            continue
        args, kwargs = samples[name]
        x = torch.arange(24.0).reshape(4, 6)
        try:
            result = function(x, *args, **kwargs)
        except (TypeError, RuntimeError):
            continue
        if _aliases(torch, result, x):
            functions.add("torch." + name)
    return functions


# Operations probed for what they save for backward (TEN307): (name, call, input shapes).
# ``call`` takes torch and the inputs. Inputs are positive, so that log, sqrt, pow and
# division are defined; a module (a ``torch.nn`` class) is built once per probe.
_UNARY = ("abs", "exp", "exp2", "expm1", "log", "log1p", "log2", "log10", "sqrt", "rsqrt", "sin", "cos",
          "tan", "tanh", "sigmoid", "reciprocal", "neg", "square", "erf", "relu", "clamp_min", "sum",
          "mean", "prod", "amax", "amin", "max", "min", "norm", "std", "var", "logsumexp", "cumsum",
          "cumprod", "softmax", "log_softmax", "clamp", "clip", "sinh", "cosh", "atan", "asinh")
_ARGUMENTS = {"clamp_min": (0.7,), "logsumexp": (-1,), "cumsum": (-1,), "cumprod": (-1,), "softmax": (-1,),
              "log_softmax": (-1,), "clamp": (0.7, 1.2), "clip": (0.7, 1.2)}
_BINARY = {"add": ((3, 4), (3, 4)), "sub": ((3, 4), (3, 4)), "mul": ((3, 4), (3, 4)), "div": ((3, 4), (3, 4)),
           "pow": ((3, 4), (3, 4)), "matmul": ((3, 4), (4, 2)), "mm": ((3, 4), (4, 2)), "bmm": ((2, 3, 4), (2, 4, 2)),
           "mv": ((3, 4), (4,)), "dot": ((4,), (4,)), "atan2": ((3, 4), (3, 4)), "maximum": ((3, 4), (3, 4)),
           "minimum": ((3, 4), (3, 4)), "baddbmm": ((2, 3, 2), (2, 3, 4), (2, 4, 2)), "addmm": ((3, 2), (3, 4), (4, 2))}
_FUNCTIONAL = {
    "relu": ((3, 4),), "leaky_relu": ((3, 4),), "elu": ((3, 4),), "selu": ((3, 4),), "gelu": ((3, 4),),
    "silu": ((3, 4),), "mish": ((3, 4),), "softplus": ((3, 4),), "hardtanh": ((3, 4),), "relu6": ((3, 4),),
    "logsigmoid": ((3, 4),), "softsign": ((3, 4),), "sigmoid": ((3, 4),), "tanh": ((3, 4),),
    "softmax": ((3, 4),), "log_softmax": ((3, 4),), "normalize": ((3, 4),), "linear": ((3, 4), (2, 4), (2,)),
    "conv1d": ((1, 2, 5), (3, 2, 3)), "conv2d": ((1, 2, 5, 5), (3, 2, 3, 3)),
    "conv3d": ((1, 2, 4, 4, 4), (3, 2, 3, 3, 3)), "conv_transpose2d": ((1, 2, 4, 4), (2, 3, 3, 3)),
    "layer_norm": ((3, 4),), "group_norm": ((2, 4, 3),), "instance_norm": ((2, 3, 5),),
    "batch_norm": ((4, 3),), "mse_loss": ((3, 4), (3, 4)), "cross_entropy": ((3, 4),),
    "binary_cross_entropy_with_logits": ((3, 4), (3, 4)), "l1_loss": ((3, 4), (3, 4)),
    "smooth_l1_loss": ((3, 4), (3, 4)), "huber_loss": ((3, 4), (3, 4)), "kl_div": ((3, 4), (3, 4)),
    "hardswish": ((3, 4),), "hardsigmoid": ((3, 4),), "cosine_similarity": ((3, 4), (3, 4)),
    "max_pool1d": ((1, 2, 6),), "avg_pool1d": ((1, 2, 6),), "max_pool2d": ((1, 2, 4, 4),),
    "avg_pool2d": ((1, 2, 4, 4),), "interpolate": ((1, 2, 4),),
    "scaled_dot_product_attention": ((1, 2, 3, 4), (1, 2, 3, 4), (1, 2, 3, 4)),
}
_FUNCTIONAL_ARGUMENTS = {"softmax": {"dim": -1}, "log_softmax": {"dim": -1}, "layer_norm": {"normalized_shape": (4,)},
                         "group_norm": {"num_groups": 2}, "batch_norm": {"running_mean": None, "running_var": None,
                                                                          "training": True},
                         "max_pool1d": {"kernel_size": 2}, "avg_pool1d": {"kernel_size": 2},
                         "max_pool2d": {"kernel_size": 2}, "avg_pool2d": {"kernel_size": 2},
                         "interpolate": {"scale_factor": 2.0, "mode": "linear"}}
_MODULES = {
    "ReLU": (), "LeakyReLU": (), "ELU": (), "SELU": (), "GELU": (), "SiLU": (), "Mish": (), "Softplus": (),
    "Sigmoid": (), "Tanh": (), "Hardtanh": (), "ReLU6": (), "LogSigmoid": (), "Softmax": (-1,),
    "LogSoftmax": (-1,), "Linear": (4, 2), "Bilinear": (4, 4, 2), "Conv1d": (2, 3, 3), "Conv2d": (2, 3, 3),
    "Conv3d": (2, 3, 3), "ConvTranspose1d": (2, 3, 3), "ConvTranspose2d": (2, 3, 3), "BatchNorm1d": (3,),
    "BatchNorm2d": (2,), "LayerNorm": (4,), "GroupNorm": (1, 2), "InstanceNorm1d": (3,), "Embedding": (),
    "Hardswish": (), "MaxPool1d": (2,), "MaxPool2d": (2,), "AvgPool2d": (2,), "RNNCell": (3, 4), "GRUCell": (3, 4),
}
_MODULE_INPUTS = {"Linear": ((3, 4),), "Bilinear": ((3, 4), (3, 4)), "Conv1d": ((1, 2, 5),),
                  "Conv2d": ((1, 2, 5, 5),), "Conv3d": ((1, 2, 4, 4, 4),), "ConvTranspose1d": ((1, 2, 5),),
                  "ConvTranspose2d": ((1, 2, 4, 4),), "BatchNorm1d": ((4, 3),), "BatchNorm2d": ((2, 2, 3, 3),),
                  "GroupNorm": ((2, 2, 3),), "InstanceNorm1d": ((2, 3, 5),), "MaxPool1d": ((1, 2, 6),),
                  "MaxPool2d": ((1, 2, 4, 4),), "AvgPool2d": ((1, 2, 4, 4),), "RNNCell": ((2, 3), (2, 4)),
                  "GRUCell": ((2, 3), (2, 4))}


_TARGETED_LOSSES = frozenset(("binary_cross_entropy_with_logits", "kl_div", "binary_cross_entropy", "nll_loss"))


def _saving_probes(torch: Any) -> dict:
    """Name in the table -> (call on inputs, input shapes, which inputs require grad)."""
    functional = torch.nn.functional
    probes = {}
    for name in _UNARY:
        extra = _ARGUMENTS.get(name, ())
        if hasattr(torch, name):
            probes["torch." + name] = (lambda x, f=getattr(torch, name), a=extra: f(x, *a), ((3, 4),), None)
        probes["torch.Tensor." + name] = (lambda x, n=name, a=extra: getattr(x, n)(*a), ((3, 4),), None)
    for name, shapes in _BINARY.items():
        probes["torch." + name] = (getattr(torch, name), shapes, None)
        probes["torch.Tensor." + name] = (getattr(torch.Tensor, name), shapes, None)
    for name, shapes in _FUNCTIONAL.items():
        keywords = _FUNCTIONAL_ARGUMENTS.get(name, {})
        if name == "cross_entropy":
            call = lambda x, f=functional.cross_entropy: f(x, torch.tensor([0, 1, 3]))  # noqa: E731
        else:
            call = lambda *x, f=getattr(functional, name), k=keywords: f(*x, **k)  # noqa: E731
        # a loss's target (argument 1) is data: it requires no grad where the loss is used (a
        # distillation target is detached), and what the loss saves may depend on it (``kl_div``)
        grads = (0,) if name.endswith("_loss") or name in _TARGETED_LOSSES else None
        probes["torch.nn.functional." + name] = (call, shapes, grads)
    for name, arguments in _MODULES.items():
        torch.manual_seed(0)
        if name == "Embedding":
            module = torch.nn.Embedding(5, 3)
            probes["torch.nn.Embedding"] = (lambda m=module: m(torch.tensor([1, 2])), (), ())
            continue
        module = getattr(torch.nn, name)(*arguments).double()
        shapes = _MODULE_INPUTS.get(name, ((3, 4),))
        # a module with parameters records its call (and saves what it needs) whatever its input
        grads = () if any(True for _ in module.parameters()) else None
        probes["torch.nn." + name] = (module, shapes, grads)
    return probes


def _write_raises(torch: Any, call: Any, shapes: tuple, grads: Any, written: Any) -> bool:
    """Run ``call`` on fresh inputs, write input ``written`` (or the output) in place, backward:
    True when backward says a value it needed was modified by an inplace operation."""
    torch.manual_seed(0)
    leaves = [
        (torch.rand(shape, dtype=torch.float64) + 0.5).requires_grad_(grads is None or index in grads)
        for index, shape in enumerate(shapes)
    ]
    inputs = [leaf.clone() if leaf.requires_grad else leaf for leaf in leaves]  # non-leaves: writable
    output = call(*inputs)
    target = output if written == "output" else inputs[written]
    with torch.no_grad():  # the write itself is not recorded; it still bumps the version counter
        target.mul_(1.5)
    try:
        output.sum().backward()
    except RuntimeError as error:
        if "modified by an inplace operation" in str(error):
            return True
        raise
    return False


def _saved_for_backward(torch: Any) -> set:
    """``name:output`` and ``name:N`` (input N) for every probed operation that saves it, and
    ``torch.Tensor.name:indices`` for the reductions along a dim handing back values and
    indices (``w.max(-1)``, ``w.topk(k)``) whose backward needs the indices."""
    saved = set()
    for name, (call, shapes, grads) in _saving_probes(torch).items():
        for written in [*range(len(shapes)), "output"]:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                if _write_raises(torch, call, shapes, grads, written):
                    saved.add("%s:%s" % (name, written))
    for name, arguments in _VALUES_INDICES.items():
        torch.manual_seed(0)
        leaf = torch.rand((3, 4), dtype=torch.float64, requires_grad=True)
        values, indices = getattr(leaf, name)(*arguments)
        with torch.no_grad():
            indices.add_(0)  # no value changes; the version counter does
        try:
            values.sum().backward()
        except RuntimeError as error:
            if "modified by an inplace operation" not in str(error):
                raise
            saved.add("torch.Tensor.%s:indices" % name)
    return saved


# The methods handing back values and indices along a dim, and the arguments that give one
_VALUES_INDICES = {"max": (-1,), "min": (-1,), "median": (-1,), "nanmedian": (-1,), "sort": (-1,), "topk": (2,),
                   "kthvalue": (2,), "mode": (-1,), "cummax": (-1,), "cummin": (-1,)}


def _layers_keeping_no_parameters(torch: Any) -> set:
    """The probed ``torch.nn`` layers with parameters whose backward needs none of them: a
    write to every parameter after the call, with the input requiring grad or not, leaves
    backward running (``nn.Embedding``: its weight's gradient needs only the indices)."""
    keeping_none = set()
    for name, arguments in _MODULES.items():
        for input_requires_grad in (True, False):
            torch.manual_seed(0)
            if name == "Embedding":
                module = torch.nn.Embedding(5, 3).double()
                inputs = [torch.tensor([1, 2])]
            else:
                module = getattr(torch.nn, name)(*arguments).double()
                inputs = [torch.rand(shape, dtype=torch.float64).requires_grad_(input_requires_grad)
                          for shape in _MODULE_INPUTS.get(name, ((3, 4),))]
            parameters = list(module.parameters())
            if not parameters:
                break
            output = module(*inputs)
            with torch.no_grad():
                for parameter in parameters:
                    parameter.mul_(1.5)
            try:
                output.sum().backward()
            except RuntimeError as error:
                if "modified by an inplace operation" in str(error):
                    break
                raise
        else:
            keeping_none.add("torch.nn." + name)
    return keeping_none


def _layers_taking(torch: Any, keyword: str):
    """``(name, class)`` of each ``torch.nn`` layer whose constructor takes ``keyword``."""
    for name in dir(torch.nn):
        layer = getattr(torch.nn, name)
        if not (inspect.isclass(layer) and issubclass(layer, torch.nn.Module)):
            continue
        try:
            parameters = inspect.signature(layer.__init__).parameters
        except (TypeError, ValueError):
            continue
        if keyword in parameters:
            yield name, layer


def _layers_taking_inplace(torch: Any) -> set:
    """The ``torch.nn`` layers whose constructor takes ``inplace`` (``nn.ReLU(inplace=True)``):
    built with it, a call writes its input and returns that tensor."""
    return {"torch.nn." + name for name, _ in _layers_taking(torch, "inplace")}


def _layers_updating_running_stats(torch: Any) -> set:
    """The ``torch.nn`` layers that keep running statistics (their constructor takes
    ``track_running_stats``) and, built with its defaults, write every buffer they hold in
    place at each call in training mode (``nn.BatchNorm2d``: ``running_mean``, ...)."""
    found = set()
    for name, layer in _layers_taking(torch, "track_running_stats"):
        try:
            module = layer(3)
        except (TypeError, ValueError):
            continue
        for shape in ((4, 3), (2, 3, 4), (2, 3, 2, 2), (2, 3, 2, 2, 2)):
            buffers = dict(module.named_buffers())
            try:  # a lazy layer's buffers are made at its first call: not known here
                before = {key: (buffer.data_ptr(), buffer.clone()) for key, buffer in buffers.items()}
            except ValueError:
                break
            try:
                module.train()(torch.rand(shape) + 2.0)
            except (RuntimeError, ValueError):
                continue
            # the same memory, new values (the kernel's update bumps no version counter)
            if buffers and all(buffer.data_ptr() == before[key][0] and not torch.equal(buffer, before[key][1])
                               for key, buffer in module.named_buffers()):
                found.add("torch.nn." + name)
            break
    return found


def build_tables() -> dict:
    """Compute every table from the installed torch; writes nothing."""
    import torch
    import torch.fft
    import torch.linalg
    import torch.nn.functional
    import torch.special

    resolver = _Resolver(torch)
    functions = _functions(torch, resolver)
    methods, tensor_attributes = _tensor_members(torch, resolver)
    view_methods, view_attributes = _views(torch)
    inplace = {
        name
        for name in dir(torch.Tensor)
        if name.endswith("_")
        and not name.startswith("_")
        and callable(getattr(torch.Tensor, name))
        and name not in METADATA_ONLY_INPLACE
    }
    legacy = {"torch.Tensor"}
    for module in ("torch", "torch.cuda"):
        legacy.update(
            module + "." + name
            for name in LEGACY_TYPES
            if hasattr(importlib.import_module(module), name)
        )
    tables = {
        "functions_returning_tensor": functions["tensor"],
        "functions_returning_tensor_sequence": functions["sequence"],
        "inplace_methods": inplace,
        "legacy_constructors": legacy,
        "tensor_attributes_returning_tensor": tensor_attributes,
        "tensor_methods_returning_tensor": methods["tensor"],
        "tensor_methods_returning_tensor_sequence": methods["sequence"],
        "tensor_methods_returning_tensor_without_arguments": _zero_argument_methods(
            torch, methods["tensor"]
        ),
        "view_attributes": view_attributes,
        "view_methods": view_methods,
        "view_functions": _view_functions(torch, view_methods),
        "saved_for_backward": _saved_for_backward(torch),
        "layers_keeping_no_parameters": _layers_keeping_no_parameters(torch),
        "layers_taking_inplace": _layers_taking_inplace(torch),
        "layers_updating_running_stats": _layers_updating_running_stats(torch),
    }
    result: dict = {key: sorted(values) for key, values in tables.items()}
    result["torch_version"] = torch.__version__
    return result


def dump(tables: dict) -> str:
    """The canonical JSON text for ``tables`` (stable across runs)."""
    return json.dumps(tables, indent=1, sort_keys=True) + "\n"


def diff_tables(old: dict, new: dict) -> list:
    """One line per key that differs: entries ``new`` adds (+) and drops (-)."""
    lines = []
    for key in sorted(set(old) | set(new)):
        before, after = old.get(key), new.get(key)
        if before == after:
            continue
        if isinstance(before, list) or isinstance(after, list):
            added = sorted(set(after or ()) - set(before or ()))
            removed = sorted(set(before or ()) - set(after or ()))
            lines.append(
                "%s: +%d %s / -%d %s"
                % (key, len(added), added, len(removed), removed)
            )
        else:
            lines.append("%s: %r -> %r" % (key, before, after))
    return lines


def main(argv: list | None = None) -> int:
    """Write the JSON, or with --check report whether it is up to date."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--check",
        action="store_true",
        help="exit 1 and print the differences if %s is stale" % OUTPUT.name,
    )
    args = parser.parse_args(argv)
    tables = build_tables()
    if args.check:
        shipped = {}
        if OUTPUT.exists():
            shipped = json.loads(OUTPUT.read_text(encoding="utf-8"))
        lines = diff_tables(shipped, tables)
        for line in lines:
            print(line)
        if lines:
            print(
                "%s is stale (+ only in installed torch, - only in the file);"
                " rerun python scripts/generate_torch_tables.py" % OUTPUT
            )
            return 1
        print("%s is up to date" % OUTPUT)
        return 0
    OUTPUT.parent.mkdir(parents=True, exist_ok=True)
    OUTPUT.write_text(dump(tables), encoding="utf-8")
    for key, value in sorted(tables.items()):
        print("%s: %s" % (key, len(value) if isinstance(value, list) else value))
    return 0


if __name__ == "__main__":
    sys.exit(main())
