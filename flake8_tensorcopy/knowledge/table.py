"""The hand-kept knowledge table: what the generated torch tables cannot say.

Each entry names an API (a tensor method, an attribute, a qualified function or a syntax form),
its role for the model, and a fixture line: a tiny program, solved by ``tests/test_model_knowledge``,
in which the role's fact must appear (``r`` is the result, ``w`` a tensor made by torch). Roles:

- ``detach``: shares the storage, leaves the graph (``w.detach()``, ``w.data``);
- ``move``: may return the tensor itself or a copy (``w.to(d)``, ``w.cuda()``): both storages;
- ``copy``: always a new storage (``w.clone()``, ``copy.deepcopy(w)``); ``differentiable``: a copy
  autograd records, a non-leaf of a tensor that requires grad (``w.clone()``; a deepcopy is a leaf);
- ``shares``: the argument's storage under a new object (``torch.from_numpy(a)``,
  ``np.asarray(w)``, ``copy.copy(w)``, ``torch.as_tensor(w)``: the tensor itself);
- ``index_cast``: a cast mostly used to make indices or masks of floats (``w.long()``): a copy
  there, so a move that returns the tensor itself only where it surely has that dtype already
  (``ids.long()`` of an int64 tensor, or of what every caller passes as one);
- ``buffer_view``: an array or tensor over the bytes of the buffer it is given, no copy
  (``numpy.frombuffer(b, dtype=numpy.float32)``, ``torch.frombuffer(b, dtype=torch.float32)``);
- ``array_elementwise``: a NumPy function computing a new array element by element from an array
  (``numpy.sin(a)``, ``numpy.clip(a, 0, 1)``), of the array's floating dtype;
- ``one_dim``: a tensor of one dimension (``torch.arange(n)``, ``torch.randperm(n)``), whose items
  iteration hands out as 0-d tensors, which index as integers do (``x[i]`` views); ``one_dim_alone``:
  so where nothing but the tensor is given (``w.unique()``, ``w.flatten()``; not ``w.flatten(1)``);
- ``array_only``: takes only an ndarray, so an unknown argument is one from there on (by use);
- ``value_read``: reads the tensor's values on the host (``w.item()``, ``w.numpy()``);
- ``sync``: waits for every copy in flight (``torch.cuda.synchronize()``, a blocking read of a
  device tensor: ``w.item()``, ``w.cpu()``);
- ``event`` / ``record`` / ``event_sync``: a CUDA event, recording it (it covers the copies in
  flight then), and waiting for it (``e.synchronize()``, ``stream.wait_event(e)``): only the
  copies the event covers are done;
- ``async_copy``: with ``non_blocking=True``, a copy that may still run when the call returns
  (to the host, or from a pinned host tensor);
- ``pin``: a host tensor in page-locked memory (``w.pin_memory()``, ``pin_memory=True``);
- ``device``: a device object (``torch.device("cpu")``);
- ``host_read`` (a function, a package's functions, a syntax form): reads its tensor operands'
  values on the host (``float(w)``, ``numpy.asarray(w)``, ``torch.save(w, f)``, ``w[0]``, ``w == 1``);
  ``shows``: reads them when they are tensors for sure (``print(w)``: it prints modules too);
- ``integer``: a Python number or metadata, no tensor (``w.size()``, ``w.shape``);
- ``backward`` / ``step``: runs autograd / changes parameters in place; a backward also adds
  into the ``.grad`` a leaf already has, in place (``torch.autograd.grad`` fills none; with
  ``create_graph=True``, and for a non-leaf's retained gradient, the sum is a new tensor);
- ``clears_grads``: ``zero_grad()`` drops the gradients of the tensors it holds (the default,
  ``set_to_none=True``: the next backward makes new ones, an old one held stays as it was) or,
  with ``set_to_none=False``, zeroes them in place; ``scales_grads``: writes in place the
  gradients of the tensors it is given (``torch.nn.utils.clip_grad_norm_(m.parameters(), 1.0)``);
  ``grad_norm``: it returns their total norm, a new tensor (the others return None);
- ``custom_function``: a base class whose subclasses autograd runs as one operation
  (``torch.autograd.Function``): ``F.apply(x)`` (role ``autograd_apply``) runs ``F.forward(ctx, x)``
  with grad off, and its output requires grad where an input does; ``saves_for_backward``: what
  ``ctx.save_for_backward(x)`` is given is kept, as autograd keeps an operation's inputs, for that
  output's backward; ``saves_arguments``: an operation keeping its tensor arguments for its
  backward, which runs the function it is given on them (``torch.utils.checkpoint.checkpoint(f, x)``,
  reentrant, the default; with ``use_reentrant=False`` the function's own operations keep what they save);
- ``param_groups``: an optimizer's parameter groups, dicts whose ``"params"`` hold its tensors;
- ``module`` / ``optimizer``: a package whose classes build modules / optimizers;
- ``scheduler``: a package whose classes build learning-rate schedulers: their ``step()``
  writes no tensor;
- ``retain_grad``: a non-leaf whose ``.grad`` backward fills; ``module_container``: a module
  holding the modules it is given as items (``nn.ModuleList([m])``); ``module_chain``: one that
  runs them in order, each on the last's output (``nn.Sequential``), so it keeps its input for backward
  where its first layer does and its output where its last layer does; ``tensor_dict``: a dict of
  tensors that do not require grad (``m.state_dict()``);
- ``constructs``: a new leaf tensor from any data (a tensor, a list, a number), detached unless
  ``requires_grad=True`` (``torch.tensor(data)``);
- ``module_parameter``: a parameter a module holds (``m.weight``): the module's storages, at every read;
- ``module_buffer``: a tensor a module holds that does not require grad (``bn.running_mean``);
  ``module_narrowing``: ``isinstance(m, nn.BatchNorm2d)`` held, so ``m`` is a module;
- ``like_buffer``: a fresh buffer shaped on its argument (``torch.empty_like(w)``): filled from
  the same tensor it is a copy of it;
- ``backpropagated``: ``x.backward()`` on an unknown ``x`` proves it a graph tensor from its binding on;
- ``returns_tensor``: a tensor method the generated tables miss (written in Python: ``w.norm()``);
- ``loss``: a functional loss, computed to be backpropagated: it may require grad where grad is
  recorded, whatever its inputs are known to be;
- ``full_reduction``: with no dim given, a 0-d tensor (``w.sum()``, ``torch.amax(w)``,
  ``F.mse_loss(a, b)``); ``keeps_shape``: a 0-d receiver gives a 0-d result (``s.detach()``);
- ``tensor_only``: a method only a tensor has: a call proves its receiver a tensor from there on;
- ``parameter``: a leaf that requires grad; ``module_call``: calling a module keeps its input
  for backward and returns a graph tensor.
- ``grad_off`` / ``grad_switch``: a context (or decorator, ``grad_off_decorator``) under which
  nothing is recorded for backward and what is computed requires no grad (``torch.no_grad()``;
  ``torch.set_grad_enabled(False)``); the context ends with its block; ``grad_on``: a context
  under which grad is recorded again (``torch.enable_grad()``, ``torch.set_grad_enabled(True)``),
  also on a path a test of grad mode took as inference; ``grad_mode_test`` /
  ``inference_mode_test``: a test whose False / True branch runs with grad off
  (``if not torch.is_grad_enabled():``, ``if torch.is_inference_mode_enabled():``);
- ``cuda_test``: a test that fails where no CUDA device is there (``torch.cuda.is_available()``),
  so no copy on that path is asynchronous; ``device_type``: the type of the device a program
  runs on (a ``torch.device``, a parameter annotated as one, a tensor's ``.device`` not known to be
  on the host), compared with ``"cuda"`` or ``"cpu"`` (``if device.type == "cuda":``), taken as the
  same test (the convention: a program testing its device's type puts its tensors there);
  ``cuda_flag``: a tensor's flag that it is on a CUDA device (``if x.is_cuda:``), the same test of
  a tensor not known to be on the host;
- ``overlapping``: a view that repeats one memory location at many positions (``w.expand(...)``);
- ``multi_output_view``: each output is a view autograd cannot rebase when written
  (``w.chunk(2)``; iterating over a tensor unbinds it);
- ``overlapping_each``: one such view of each tensor it is given (``torch.meshgrid(x, y)``: the
  grid of ``x`` repeats each of its elements along ``y``'s dimension);
- ``uniform_write``: writes one value everywhere (``w.fill_(0)``): an overlapping view takes it;
- ``unmasked_overlap``: writes where a mask says, so an overlapping view does not raise on CPU;
- ``overwrites``: sets every element without reading the old values (``w.normal_()``,
  ``w.copy_(u)``, ``nn.init.xavier_uniform_(w)``): through a handle to a parameter, the
  parameter's (re)initialisation;
- ``unversioned``: an alias whose writes skip autograd's version counter (``w.data``);
- ``registers``: stores a tensor on the module under the name it is given (``register_buffer``);
- ``rearrange``: a view of the same elements in another order (``w.t()``, ``w.mT``);
- ``index_result``: a tensor of indices, never in a graph (``w.argmax()``);
- ``new_leaf``: a new tensor shaped on its argument (or its receiver), requiring grad only with
  ``requires_grad=True`` whatever that requires (``torch.randn_like(w)``, ``w.new_zeros(3)``);
- ``values_indices``: a named tuple of a new tensor of values, in the graph where the operand
  is, and a tensor of indices (``w.sort()``, ``torch.topk(w, 1)``: ``.values``/``[0]``,
  ``.indices``/``[1]``); ``values_indices_with_dim``: the same where a dim is given
  (``w.max(0)``; ``w.max()`` is a tensor, ``w.max(u)`` the elementwise maximum);
- ``distribution``: a package whose classes build probability distributions from tensors;
  ``reparameterized``: what a distribution computes differentiably from its parameters
  (``d.rsample()``, ``d.log_prob(x)``, ``d.loc``): it may require grad where they do;
  ``draw``: a sample autograd does not record (``d.sample()``: no grad, whatever the parameters);
- ``legacy_of_array``: a legacy typed constructor given an ndarray of its dtype (``LEGACY_DTYPES``)
  shares the array's memory; given one of another dtype it copies (``FLOAT64_ARRAYS`` are float64
  unless ``dtype=`` says otherwise);
- ``forward_hook``: registers a function each call of the module runs with its output (a graph
  tensor where the module has parameters): what it keeps in enclosing containers holds that;
- ``collating_loader``: a ``DataLoader`` left with its default ``collate_fn`` (and a batch size):
  each batch it yields holds tensors where the dataset's items hold only numbers, arrays or tensors
  (``tensor_dataset``: a ``TensorDataset``; a class of the file: what its ``__getitem__`` returns);
  ``yields_items``: a progress wrapper iterating what it is given (``tqdm(loader)``);
- ``dict_of_pairs``: a dict of the pairs it is given, in order (``OrderedDict([('a', w)])``:
  ``r['a']`` is ``w``), as ``dict(pairs)`` makes;
- ``binds_arguments``: a callable that calls its first argument with the others before its own
  (``functools.partial(f, w)(1)`` is ``f(w, 1)``);
- ``default_dict``: a dict whose missing keys hold what its factory makes (``defaultdict(list)``:
  ``r['a'].append(w)`` puts ``w`` in the list at ``'a'``);
- ``array_constructor``: a new NumPy array (``numpy.zeros(3)``, ``numpy.array(w)``, ``numpy.stack``);
  ``array_inplace``: an array method that writes the array (``a.sort()``, ``a.fill(0)``);
  ``array_view``: one that shares its memory (``a.reshape(-1)``, ``a.T``); ``array_copy``: one
  that makes a new array (``a.copy()``; ``a.astype(t, copy=False)`` may return ``a`` itself);
  the syntax ``out=`` of a NumPy function writes that array in place (role ``inplace``);
- ``random_generator``: an object whose methods are its package's functions
  (``numpy.random.default_rng(0).random(3)`` makes a new array as ``numpy.random.random(3)`` does);
- ``blank``: a new buffer of constant or uninitialised content (``torch.empty(n)``), made to be
  filled: a write through an alias of it fills it;
- ``requires_grad``: a leaf that requires grad from now on: the tensor itself
  (``w.requires_grad_()``, ``w.requires_grad = True``) or a new one (``torch.tensor(v, requires_grad=True)``).
"""

from typing import Dict, NamedTuple, Tuple


class Entry(NamedTuple):
    name: str  # method or attribute name, qualified function, package prefix or syntax form
    where: str  # "method", "attribute", "function", "package", "syntax"
    role: str
    example: str  # the fixture line(s); ``w`` is a tensor, ``r`` the result


_W = "import torch, copy\nw = torch.ones(2, requires_grad=True)\n"
_CUDA = "import torch\nw = torch.ones(2, device='cuda')\nh = w.to('cpu', non_blocking=True)\n"
_PINNED = "import torch\np = torch.ones(2).pin_memory()\n"
_A = "import numpy\nw = numpy.ones(4)\n"  # a NumPy array
_FUNCTION = (_W + "class Scale(torch.autograd.Function):\n    @staticmethod\n    def forward(ctx, x, k):\n"
             "        ctx.save_for_backward(x)\n        return x * k\n\n    @staticmethod\n"
             "    def backward(ctx, g):\n        return g * 2, None\n\n\nr = Scale.apply(w, 2.0)")  # a custom Function
_L = "import torch\nimport torch.nn.functional as F\nw = torch.ones(2)\nr = F.%s(w, w)"

# the dtype a cast method gives (``w.float()``: float32), and every dtype name torch and NumPy share
CAST_DTYPES: Dict[str, str] = {
    "float": "float32", "double": "float64", "half": "float16", "bfloat16": "bfloat16", "long": "int64",
    "int": "int32", "short": "int16", "bool": "bool", "byte": "uint8", "char": "int8",
}
DTYPES = frozenset(CAST_DTYPES.values()) | {"complex64", "complex128"}
# the dtypes ``is_floating_point()`` is true of
FLOATING_DTYPES = frozenset({"float16", "bfloat16", "float32", "float64"})
# The dtype of each CPU legacy typed constructor: given an ndarray of that dtype it shares the
# array's memory (``torch.Tensor`` is float32, the default dtype); of another dtype it copies.
LEGACY_DTYPES: Dict[str, str] = {
    "torch.Tensor": "float32", "torch.FloatTensor": "float32", "torch.DoubleTensor": "float64",
    "torch.HalfTensor": "float16", "torch.BFloat16Tensor": "bfloat16", "torch.LongTensor": "int64",
    "torch.IntTensor": "int32", "torch.ShortTensor": "int16", "torch.ByteTensor": "uint8",
    "torch.CharTensor": "int8", "torch.BoolTensor": "bool",
}
# Operands autograd keeps only for another operand's gradient: operand -> the operand that must
# require grad for it to be saved (``x * 0.5`` and ``x * mask`` keep nothing of ``x``; ``x * w``
# with ``w`` requiring grad keeps ``x``; ``a / b`` keeps ``a`` only for ``b``'s gradient).
SAVED_FOR_OTHER: Dict[str, Dict[int, int]] = {
    name: saved for names, saved in (
        (("torch.mul", "torch.Tensor.mul", "torch.matmul", "torch.Tensor.matmul"), {0: 1, 1: 0}),
        (("torch.div", "torch.Tensor.div"), {0: 1}),
    ) for name in names
}
# The buffers a layer keeping running statistics (the generated ``layers_updating_running_stats``)
# writes in place at each call in training mode
RUNNING_STATISTICS = frozenset(("running_mean", "running_var", "num_batches_tracked"))
# In-place methods that change only a tensor's shape or strides: its values stay (no alias sees
# another value), but autograd's version counter counts the call, so a tensor saved for
# backward and changed so fails that backward (TEN307); tests/test_knowledge_runtime runs each
METADATA_INPLACE = frozenset(("t_", "transpose_", "swapdims_", "swapaxes_", "squeeze_", "unsqueeze_", "as_strided_"))
# In-place methods that may give a tensor other sizes and strides, and new values too
RESIZES_IN_PLACE = frozenset(("resize_", "resize_as_", "set_"))
# Factories whose arguments are the sizes of a new contiguous tensor (``torch.rand(2, 3)``,
# ``torch.zeros((2, 3))``): True where only the first argument is (``torch.full((2, 3), 0.5)``)
FACTORIES_OF_SIZES: Dict[str, bool] = {
    "torch.zeros": False, "torch.ones": False, "torch.empty": False, "torch.rand": False, "torch.randn": False,
    "torch.full": True,
}
# Ranges whose literal bounds give the length of the 1-d tensor they make (``torch.arange(6.0)``)
RANGES_OF_SIZES = frozenset(("torch.arange",))
# The list methods that grow a container in place (no tensor or array has them): what is given is
# kept beside what the container held (the gate opens TEN306 on them; the model keeps the item)
CONTAINER_GROWTH = frozenset(("append", "extend", "insert"))
# The list and deque methods that take items out (what the container keeps stays bounded: TEN306),
# and those after which its first positions hold what was put there last (``history[0]`` then holds
# no earlier call's item)
CONTAINER_TAKING = frozenset(("clear", "pop", "popleft", "popitem"))
CONTAINER_RENEWING_FRONT = frozenset(("clear", "insert", "appendleft"))
# torch's other names of dtypes (``torch.long`` is int64)
DTYPE_ALIASES: Dict[str, str] = {
    "float": "float32", "double": "float64", "half": "float16", "long": "int64", "int": "int32", "short": "int16",
    "cfloat": "complex64", "cdouble": "complex128",
}
# Layers built with ``inplace=True`` that write their input only in training: in eval mode they hand
# it back untouched (measured on torch 2.13, ``tests/test_knowledge_runtime``)
INPLACE_ONLY_IN_TRAINING = frozenset("torch.nn." + name for name in ("Dropout", "Dropout1d", "Dropout2d", "Dropout3d"))
# NumPy's ranges of the numbers given: of integers an int64 array, of a float a float64 one
RANGES_OF_NUMBERS = frozenset(("numpy.arange",))
# NumPy's elementwise functions computed in floats, and the float they compute an integer (or
# bool) array in (``numpy.sin`` of int64 is float64, of int16 float32, of uint8 float16)
NUMPY_FLOAT_FUNCTIONS = frozenset("numpy." + name for name in (
    "sin", "cos", "tan", "tanh", "exp", "expm1", "log", "log1p", "log2", "log10", "sqrt"))
NUMPY_FLOAT_OF_INTEGERS = {"bool": "float16", "int8": "float16", "uint8": "float16", "int16": "float32",
                           "uint16": "float32", "int32": "float64", "uint32": "float64", "int64": "float64",
                           "uint64": "float64"}
# Module attributes that are Python floats (``numpy.pi``, ``math.pi``)
NUMERIC_CONSTANTS = frozenset(f"{package}.{name}" for package in ("numpy", "math") for name in ("pi", "e", "inf", "nan", "tau"))
# Python's types and NumPy's other names as dtypes (``numpy.zeros(n, float)``, ``dtype=np.double``;
# torch reads Python's types so too)
PYTHON_DTYPES: Dict[str, str] = {"float": "float64", "int": "int64", "bool": "bool", "complex": "complex128"}
NUMPY_DTYPE_ALIASES: Dict[str, str] = {
    "double": "float64", "single": "float32", "half": "float16", "float_": "float64", "int_": "int64",
    "intc": "int32", "longlong": "int64", "bool_": "bool",
}
# The dtype of a result that depends neither on its operands' dtypes nor on the default dtype,
# each with its fixture expression (``w`` a float tensor): ``tests/test_knowledge_runtime`` runs
# it on float32 and float64 tensors. ``torch.arange`` of integers, ``torch.full`` of an integer,
# ``torch.tensor`` of integer literals and a comparison's result follow from the same rule in
# the model (transfer.py, ``result_dtype``).
_BOOL_RESULTS = (("isnan", ""), ("isinf", ""), ("isfinite", ""), ("isposinf", ""), ("isneginf", ""), ("signbit", ""),
                 ("logical_not", ""), ("eq", "w"), ("ne", "w"), ("gt", "w"), ("ge", "w"), ("lt", "w"), ("le", "w"),
                 ("greater", "w"), ("greater_equal", "w"), ("less", "w"), ("less_equal", "w"), ("not_equal", "w"),
                 ("isclose", "w"), ("logical_and", "w"), ("logical_or", "w"), ("logical_xor", "w"))
_INT64_RESULTS = (("argmax", ""), ("argmin", ""), ("argsort", ""), ("count_nonzero", ""))


def _function_and_method(dtype: str, name: str, other: str) -> Dict[str, Tuple[str, str]]:
    """``torch.name(w, other)`` and ``w.name(other)``, both of ``dtype``."""
    return {"torch." + name: (dtype, "torch.%s(w%s)" % (name, ", " + other if other else "")),
            "torch.Tensor." + name: (dtype, "w.%s(%s)" % (name, other))}


RESULT_DTYPES: Dict[str, Tuple[str, str]] = {
    **{key: entry for name, other in _BOOL_RESULTS for key, entry in _function_and_method("bool", name, other).items()},
    **{key: entry for name, other in _INT64_RESULTS for key, entry in _function_and_method("int64", name, other).items()},
    "torch.multinomial": ("int64", "torch.multinomial(w.abs() + 1, 1)"),
    "torch.randint": ("int64", "torch.randint(0, 5, (3,))"),
    "torch.randperm": ("int64", "torch.randperm(3)"),
    "torch.tril_indices": ("int64", "torch.tril_indices(3, 3)"),
    "torch.triu_indices": ("int64", "torch.triu_indices(3, 3)"),
    "torch.bincount": ("int64", "torch.bincount(w.long())"),
    "torch.Tensor.bincount": ("int64", "w.long().bincount()"),
    "torch.bucketize": ("int64", "torch.bucketize(w, w.sort().values)"),
    "torch.searchsorted": ("int64", "torch.searchsorted(w.sort().values, w)"),
    "torch.nn.functional.one_hot": ("int64", "torch.nn.functional.one_hot((w * 3).long(), 3)"),
}
# The dtype of what a factory makes where neither ``dtype=`` nor its data decides: the default
# dtype, float32 unless the program sets another; a file calling one of ``DEFAULT_DTYPE_SETTERS``
# is given none. Each factory with its fixture expression (``tests/test_knowledge_runtime`` runs
# it under two default dtypes). ``torch.full`` of a float, ``torch.arange`` of a float and
# ``torch.tensor`` of float literals follow the same rule in the model (``result_dtype``).
DEFAULT_DTYPE = "float32"
# in-place methods that replace every value of their receiver without reading it: the receiver's
# name there is written, not observed (``p.copy_(p_fp32)`` writes an update back)
OVERWRITING_METHODS = frozenset(("copy_", "zero_", "fill_", "normal_", "uniform_", "random_", "bernoulli_",
                                 "exponential_", "geometric_", "cauchy_", "log_normal_"))
DEFAULT_DTYPE_SETTERS = frozenset(("set_default_dtype", "set_default_tensor_type"))
# factories given no device make host tensors, unless the file may change the default device
# (``torch.set_default_device``, a legacy CUDA tensor type, ``with torch.device("cuda"):``)
DEFAULT_DEVICE = "cpu"
DEFAULT_DEVICE_SETTERS = frozenset(("set_default_device", "set_default_tensor_type", "device"))
DEFAULT_DTYPE_FACTORIES: Dict[str, str] = {
    "torch.zeros": "torch.zeros(2)", "torch.ones": "torch.ones(2)", "torch.empty": "torch.empty(2)",
    "torch.rand": "torch.rand(2)", "torch.randn": "torch.randn(2)", "torch.eye": "torch.eye(2)",
    "torch.linspace": "torch.linspace(0, 1, 3)", "torch.logspace": "torch.logspace(0, 1, 3)",
    "torch.hann_window": "torch.hann_window(4)", "torch.hamming_window": "torch.hamming_window(4)",
}
# Where an argument decides a ``RESULT_DTYPES`` result's dtype instead: its keyword and, if it
# may be passed by position, its position among the arguments (a method's receiver not counted)
RESULT_DTYPE_UNLESS: Dict[str, Tuple[str, int]] = {
    "torch.bincount": ("weights", 1), "torch.Tensor.bincount": ("weights", 0),
    "torch.bucketize": ("out_int32", -1), "torch.searchsorted": ("out_int32", -1),
}
# NumPy constructors whose arrays are float64 unless ``dtype=`` says otherwise
FLOAT64_ARRAYS = frozenset(("numpy.zeros", "numpy.ones", "numpy.empty", "numpy.eye", "numpy.identity",
                            "numpy.random.rand", "numpy.random.randn", "numpy.random.random", "numpy.linspace"))
# NumPy constructors of the data they are given: of Python floats spelled in the code (in lists and
# tuples, one a float at least) a float64 array
ARRAYS_OF_DATA = frozenset(("numpy.array", "numpy.asarray"))
# The keywords of ``torch.utils.checkpoint.checkpoint`` itself; the others go to the function it runs
CHECKPOINT_OPTIONS = frozenset(("use_reentrant", "preserve_rng_state", "determinism_check", "debug", "context_fn"))
# Where a NumPy function takes its ``dtype`` by position too: its index among the arguments
# (``numpy.zeros(n, numpy.float32)``, ``numpy.frombuffer(b, numpy.uint8)``)
NUMPY_DTYPE_AT = {"numpy.zeros": 1, "numpy.ones": 1, "numpy.empty": 1, "numpy.identity": 1, "numpy.eye": 3,
                  "numpy.linspace": 5, "numpy.array": 1, "numpy.asarray": 1, "numpy.frombuffer": 1,
                  "numpy.zeros_like": 1, "numpy.ones_like": 1, "numpy.empty_like": 1, "numpy.full": 2,
                  "numpy.full_like": 2}
# NumPy random draws that make an array only where a size is given (the positional index of the
# size, or of the first dimension; ``size=`` too): without one they draw a number
# (``numpy.random.uniform(0.8, 1.2)``, ``rng.random()``, ``rng.integers(n)``); those of
# ``RANDOM_DRAWS_FROM`` draw an item of their first argument, a number only where that is an int
# (``rng.choice(n)``; ``rng.choice(pairs)`` of a 2-D array draws a row)
RANDOM_DRAW_SIZE_AT = {"numpy.random.rand": 0, "numpy.random.randn": 0, "numpy.random.random": 0,
                       "numpy.random.standard_normal": 0, "numpy.random.normal": 2, "numpy.random.uniform": 2,
                       "numpy.random.randint": 2, "numpy.random.integers": 2, "numpy.random.choice": 1}
RANDOM_DRAWS_FROM = frozenset(("numpy.random.choice",))

HAND_TABLE: Tuple[Entry, ...] = (
    Entry("detach", "method", "detach", _W + "r = w.detach()"),
    Entry("detach_", "method", "detach", _W + "r = w.detach_()"),
    Entry("data", "attribute", "detach", _W + "r = w.data"),
    Entry("to", "method", "move", _W + "r = w.to('cuda')"),
    Entry("cuda", "method", "move", _W + "r = w.cuda()"),
    Entry("cpu", "method", "move", _W + "r = w.cpu()"),
    Entry("type", "method", "move", _W + "r = w.type(torch.float16)"),
    Entry("double", "method", "move", _W + "r = w.double()"),
    Entry("float", "method", "move", _W + "r = w.float()"),
    Entry("half", "method", "move", _W + "r = w.half()"),
    Entry("bfloat16", "method", "move", _W + "r = w.bfloat16()"),
    Entry("long", "method", "move", _W + "r = w.long()"),
    Entry("int", "method", "move", _W + "r = w.int()"),
    Entry("bool", "method", "move", _W + "r = w.bool()"),
    Entry("contiguous", "method", "move", _W + "r = w.contiguous()"),
    Entry("clone", "method", "copy", _W + "r = w.clone()"),
    Entry("torch.clone", "function", "copy", _W + "r = torch.clone(w)"),
    Entry("clone", "method", "differentiable", _W + "r = w.clone()"),
    Entry("torch.clone", "function", "differentiable", _W + "r = torch.clone(w)"),
    Entry("copy.deepcopy", "function", "copy", _W + "r = copy.deepcopy(w)"),
    Entry("copy.copy", "function", "shares", _W + "r = copy.copy(w)"),
    Entry("torch.from_numpy", "function", "shares", _W + "r = torch.from_numpy(w.detach().numpy())"),
    Entry("torch.from_numpy", "function", "array_only", "import torch\ndef f(w):\n    r = torch.from_numpy(w)\n    return r"),
    Entry("torch.as_tensor", "function", "shares", _W + "r = torch.as_tensor(w)"),
    Entry("torch.asarray", "function", "shares", _W + "r = torch.asarray(w)"),
    Entry("numpy.asarray", "function", "shares", "import numpy\n" + _W + "r = numpy.asarray(w)"),
    Entry("numpy.frombuffer", "function", "buffer_view",
          "import numpy\nw = bytearray(8)\nr = numpy.frombuffer(w, dtype=numpy.float32)"),
    Entry("torch.frombuffer", "function", "buffer_view",
          "import torch\nw = bytearray(8)\nr = torch.frombuffer(w, dtype=torch.float32)"),
    Entry("long", "method", "index_cast", _W + "r = w.long()"),
    Entry("int", "method", "index_cast", _W + "r = w.int()"),
    Entry("bool", "method", "index_cast", _W + "r = w.bool()"),
    Entry("torch.tensor", "function", "copy", _W + "r = torch.tensor(w)"),
    Entry("torch.tensor", "function", "constructs", _W + "r = torch.tensor(w)"),
    Entry("torch.no_grad", "syntax", "grad_off_decorator", "import torch\n@torch.no_grad()\ndef f(w: torch.nn.Parameter):\n    r = w * 2\n    return r"),
    Entry("backward", "method", "backpropagated", "def f(criterion, a):\n    r = criterion(a)\n    q = r\n    r.backward()"),
    Entry("norm", "method", "returns_tensor", _W + "r = w.norm()"),
    # a pooling that returns its indices too only when asked (``return_indices=True``): the stubs
    # type it as either, so the generated tables leave it out
    Entry("torch.nn.functional.max_pool1d", "function", "returns_tensor",
          _W + "r = torch.nn.functional.max_pool1d(w.reshape(1, 1, 2), 2)"),
    Entry("torch.nn.functional.max_pool2d", "function", "returns_tensor",
          _W + "r = torch.nn.functional.max_pool2d(w.reshape(1, 1, 1, 2), (1, 2))"),
    Entry("torch.nn.functional.max_pool3d", "function", "returns_tensor",
          _W + "r = torch.nn.functional.max_pool3d(w.reshape(1, 1, 1, 1, 2), (1, 1, 2))"),
    Entry("torch.empty_like", "function", "like_buffer", _W + "r = torch.empty_like(w)"),
    Entry("torch.zeros_like", "function", "like_buffer", _W + "r = torch.zeros_like(w)"),
    Entry("torch.ones_like", "function", "like_buffer", _W + "r = torch.ones_like(w)"),
) + tuple(
    Entry("torch." + name, "function", "new_leaf", _W + "r = torch.%s(w%s)" % (name, extra))
    for name, extra in (("empty_like", ""), ("zeros_like", ""), ("ones_like", ""), ("full_like", ", 2.0"),
                        ("rand_like", ""), ("randn_like", ""), ("randint_like", ", 5"))
) + tuple(
    Entry(name, "method", "new_leaf", _W + "r = w.%s(%s)" % (name, arguments))
    for name, arguments in (("new_zeros", "3"), ("new_ones", "3"), ("new_empty", "3"), ("new_full", "(3,), 2.0"))
) + (
    Entry("weight", "attribute", "module_parameter", _W + "m = torch.nn.Linear(2, 2)\nr = m.weight"),
    Entry("bias", "attribute", "module_parameter", _W + "m = torch.nn.Linear(2, 2)\nr = m.bias"),
    Entry("running_mean", "attribute", "module_buffer", _W + "m = torch.nn.BatchNorm1d(2)\nr = m.running_mean"),
    Entry("running_var", "attribute", "module_buffer", _W + "m = torch.nn.BatchNorm1d(2)\nr = m.running_var"),
    Entry("isinstance", "syntax", "module_narrowing",
          "import torch\ndef f(m):\n    if isinstance(m, torch.nn.BatchNorm2d):\n        return m"),
    Entry("item", "method", "value_read", _W + "r = w.item()"),
    Entry("tolist", "method", "value_read", _W + "r = w.tolist()"),
    Entry("numpy", "method", "value_read", _W + "r = w.numpy()"),
    Entry("torch.cuda.synchronize", "function", "sync", _CUDA + "torch.cuda.synchronize()"),
    Entry("synchronize", "method", "sync", _CUDA + "torch.cuda.current_stream().synchronize()"),
    Entry("item", "method", "sync", _CUDA + "w.sum().item()"),
    Entry("tolist", "method", "sync", _CUDA + "w.tolist()"),
    Entry("cpu", "method", "sync", _CUDA + "w.cpu()"),
    Entry("to", "method", "sync", _CUDA + "w.to('cpu')"),
    Entry("torch.cuda.Event", "function", "event", _CUDA + "r = torch.cuda.Event()"),
    Entry("record", "method", "record", _CUDA + "r = torch.cuda.Event()\nr.record()"),
    Entry("synchronize", "method", "event_sync", _CUDA + "r = torch.cuda.Event()\nr.record()\nr.synchronize()"),
    Entry("wait_event", "method", "event_sync",
          _CUDA + "r = torch.cuda.Event()\nr.record()\ntorch.cuda.current_stream().wait_event(r)"),
    Entry("to", "method", "async_copy", _PINNED + "r = p.to('cuda', non_blocking=True)"),
    Entry("cuda", "method", "async_copy", _PINNED + "r = p.cuda(non_blocking=True)"),
    Entry("copy_", "method", "async_copy", _W + "r = torch.empty(2, pin_memory=True)\nr.copy_(w, non_blocking=True)"),
    Entry("pin_memory", "method", "pin", _W + "r = w.detach().pin_memory()"),
    Entry("pin_memory", "syntax", "pin", _W + "r = torch.zeros(2, pin_memory=True)"),
    Entry("torch.device", "function", "device", _W + "r = torch.device('cpu')"),
    Entry("builtins.float", "function", "host_read", _W + "r = float(w)"),
    Entry("builtins.int", "function", "host_read", _W + "r = int(w)"),
    Entry("builtins.bool", "function", "host_read", _W + "r = bool(w)"),
    Entry("builtins.list", "function", "host_read", _W + "r = list(w)"),
    Entry("builtins.print", "function", "shows", _W + "print(w)"),
    Entry("builtins.str", "function", "shows", _W + "r = str(w)"),
    Entry("torch.save", "function", "host_read", _W + "torch.save(w, 'w.pt')"),
    Entry("numpy", "package", "host_read", "import numpy\n" + _W + "r = numpy.asarray(w)"),
    Entry("subscript", "syntax", "host_read", _W + "r = w[0]"),
    Entry("comparison", "syntax", "host_read", _W + "r = w == 1"),
    Entry("arithmetic", "syntax", "host_read", _W + "r = w * 2"),
    Entry("tensor_method", "syntax", "host_read", _W + "r = w.sum()"),
    Entry("torch_function", "syntax", "host_read", _W + "r = torch.cat([w])"),
    Entry("module_call", "syntax", "host_read", _W + "m = torch.nn.Linear(2, 2)\nr = m(w)"),
    Entry("numpy.copyto", "function", "inplace", "import numpy\n" + _W + "v = w.detach().numpy()\nnumpy.copyto(v, 0)"),
    Entry("numpy.random.shuffle", "function", "inplace",
          "import numpy\n" + _W + "v = w.detach().numpy()\nnumpy.random.shuffle(v)"),
    Entry("out=", "syntax", "inplace", "import numpy\n" + _W + "v = w.detach().numpy()\nnumpy.add(v, 1, out=v)"),
    Entry("size", "method", "integer", _W + "r = w.size()"),
    Entry("dim", "method", "integer", _W + "r = w.dim()"),
    Entry("numel", "method", "integer", _W + "r = w.numel()"),
    Entry("stride", "method", "integer", _W + "r = w.stride()"),
    Entry("element_size", "method", "integer", _W + "r = w.element_size()"),
    Entry("get_device", "method", "integer", _W + "r = w.get_device()"),
    Entry("data_ptr", "method", "integer", _W + "r = w.data_ptr()"),
    Entry("shape", "attribute", "integer", _W + "r = w.shape"),
    Entry("ndim", "attribute", "integer", _W + "r = w.ndim"),
    Entry("dtype", "attribute", "integer", _W + "r = w.dtype"),
    Entry("device", "attribute", "integer", _W + "r = w.device"),
    Entry("requires_grad", "attribute", "integer", _W + "r = w.requires_grad"),
    Entry("backward", "method", "backward", _W + "w.sum().backward()"),
    Entry("torch.autograd.backward", "function", "backward", _W + "torch.autograd.backward(w.sum())"),
    Entry("torch.autograd.grad", "function", "backward", _W + "r = torch.autograd.grad(w.sum(), [w])"),
    Entry("step", "method", "step", _W + "opt = torch.optim.SGD([w], lr=0.1)\nopt.step()"),
    Entry("zero_grad", "method", "clears_grads",
          _W + "opt = torch.optim.SGD([w], lr=0.1)\nw.sum().backward()\nr = w.grad\nq = w.grad\nopt.zero_grad()\n"
          "w.sum().backward()\ns = w.grad\nw.sum().backward()"),
    Entry("torch.nn.utils.clip_grad_norm_", "function", "scales_grads",
          _W + "w.sum().backward()\nr = w.grad\ntorch.nn.utils.clip_grad_norm_([w], 1.0)"),
    Entry("torch.nn.utils.clip_grad_value_", "function", "scales_grads",
          _W + "w.sum().backward()\nr = w.grad\ntorch.nn.utils.clip_grad_value_([w], 1.0)"),
    Entry("torch.nn.utils.clip_grad.clip_grad_norm_", "function", "scales_grads",
          _W + "import torch.nn.utils.clip_grad\nw.sum().backward()\nr = w.grad\n"
          "torch.nn.utils.clip_grad.clip_grad_norm_([w], 1.0)"),
    Entry("torch.nn.utils.clip_grad.clip_grad_value_", "function", "scales_grads",
          _W + "import torch.nn.utils.clip_grad\nw.sum().backward()\nr = w.grad\n"
          "torch.nn.utils.clip_grad.clip_grad_value_([w], 1.0)"),
    Entry("torch.nn.utils.clip_grad_norm", "function", "scales_grads",
          _W + "w.sum().backward()\nr = w.grad\ntorch.nn.utils.clip_grad_norm([w], 1.0)"),
    Entry("torch.nn.utils.clip_grads_with_norm_", "function", "scales_grads",
          _W + "w.sum().backward()\nr = w.grad\ntorch.nn.utils.clip_grads_with_norm_([w], 1.0, torch.tensor(2.0))"),
    Entry("torch.nn.utils.clip_grad_norm_", "function", "grad_norm",
          _W + "w.sum().backward()\nr = torch.nn.utils.clip_grad_norm_([w], 1.0)"),
    Entry("torch.nn.utils.clip_grad.clip_grad_norm_", "function", "grad_norm",
          _W + "import torch.nn.utils.clip_grad\nw.sum().backward()\nr = torch.nn.utils.clip_grad.clip_grad_norm_([w], 1.0)"),
    Entry("torch.nn.utils.clip_grad_norm", "function", "grad_norm",
          _W + "w.sum().backward()\nr = torch.nn.utils.clip_grad_norm([w], 1.0)"),
    Entry("torch.autograd.Function", "function", "custom_function", _FUNCTION),
    Entry("torch.autograd.function.Function", "function", "custom_function",
          _FUNCTION.replace("torch.autograd.Function", "torch.autograd.function.Function")),
    Entry("apply", "attribute", "autograd_apply", _FUNCTION),
    Entry("save_for_backward", "method", "saves_for_backward", _FUNCTION),
    Entry("torch.utils.checkpoint.checkpoint", "function", "saves_arguments",
          _W + "import torch.utils.checkpoint\nr = torch.utils.checkpoint.checkpoint(torch.sigmoid, w, use_reentrant=True)"),
    Entry("param_groups", "attribute", "param_groups",
          _W + "opt = torch.optim.SGD([w], lr=0.1)\nr = opt.param_groups[0][\"params\"][0]"),
    Entry("torch.nn", "package", "module", _W + "r = torch.nn.Linear(2, 2)"),
    Entry("torch.optim", "package", "optimizer", _W + "r = torch.optim.Adam([w])"),
    Entry("torch.optim.lr_scheduler", "package", "scheduler",
          _W + "m = torch.nn.Linear(2, 2)\nopt = torch.optim.SGD(m.parameters(), lr=0.1)\nm(w).sum().backward()\n"
          "r = torch.optim.lr_scheduler.StepLR(opt, 1)\nr.step()"),
    # a class of the package or of one of its modules (``torch.distributions.normal.Normal``)
    Entry("torch.distributions", "package", "distribution",
          _W + "import torch.distributions.normal\nr = torch.distributions.normal.Normal(w, 1.0)"),
    Entry("sample", "method", "draw", _W + "d = torch.distributions.Normal(w, 1.0)\nr = d.sample()"),
    Entry("torch.utils.data.DataLoader", "function", "collating_loader",
          "import torch, torch.utils.data\nw = torch.ones(4, 2)\nds = torch.utils.data.TensorDataset(w, w.sum(1))\n"
          "loader = torch.utils.data.DataLoader(ds, batch_size=2)\nfor x, label in loader:\n    r = label"),
    Entry("torch.utils.data.TensorDataset", "function", "tensor_dataset",
          _W + "import torch.utils.data\nr = torch.utils.data.TensorDataset(w)"),
) + tuple(
    Entry(wrapper, "function", "yields_items",
          _W + "import tqdm, tqdm.auto\nrows = [w]\nfor item in %s(rows):\n    r = item" % wrapper)
    for wrapper in ("tqdm.tqdm", "tqdm.auto.tqdm", "tqdm.notebook.tqdm")
) + tuple(
    Entry(name, where, "reparameterized", _W + "d = torch.distributions.Normal(w, 1.0)\nr = d.%s%s" % (
        name, "(w)" if where == "method" and name != "rsample" else "()" if where == "method" else ""))
    for name, where in (("rsample", "method"), ("log_prob", "method"), ("cdf", "method"), ("icdf", "method"),
                        ("loc", "attribute"), ("probs", "attribute"),
                        ("logits", "attribute"))
) + (
    Entry("torch.Tensor", "function", "legacy_of_array",
          "import numpy, torch\nw = numpy.zeros(2, dtype=numpy.float32)\nr = torch.Tensor(w)"),
    Entry("torch.FloatTensor", "function", "legacy_of_array",
          "import numpy, torch\nw = numpy.zeros(2, dtype='float32')\nr = torch.FloatTensor(w)"),
    Entry("torch.DoubleTensor", "function", "legacy_of_array",
          "import numpy, torch\nw = numpy.zeros(2)\nr = torch.DoubleTensor(w)"),
    Entry("torch.LongTensor", "function", "legacy_of_array",
          "import numpy, torch\nw = numpy.ones(2, dtype=numpy.int64)\nr = torch.LongTensor(w)"),
    Entry("register_forward_hook", "method", "forward_hook",
          _W + "m = torch.nn.Linear(2, 2)\nr = {}\ndef keep(module, inputs, output):\n    r['out'] = output\n"
          "m.register_forward_hook(keep)"),
    Entry("collections.OrderedDict", "function", "dict_of_pairs",
          _W + "import collections\nr = collections.OrderedDict([('a', w), ('b', 1.0)])"),
    Entry("functools.partial", "function", "binds_arguments",
          "import functools\n" + _W + "def f(a, b):\n    return a\np = functools.partial(f, w)\nr = p(1)"),
    Entry("collections.defaultdict", "function", "default_dict",
          _W + "import collections\nr = collections.defaultdict(list)\nr['a'].append(w)"),
    Entry("torch.nn.Parameter", "function", "parameter", _W + "r = torch.nn.Parameter(torch.zeros(2))"),
    Entry("module_call", "syntax", "module_call", _W + "m = torch.nn.Linear(2, 2)\nr = m(w)"),
    Entry("augmented_assignment", "syntax", "inplace", _W + "r = w.detach()\nr += 1"),
    Entry("retain_grad", "method", "retain_grad", _W + "r = w * 2\nr.retain_grad()"),
    Entry("requires_grad", "attribute", "requires_grad", "import torch\nw = torch.ones(2)\nw.requires_grad = True\nr = w"),
    Entry("torch.tensor", "function", "requires_grad", "import torch\nw = torch.ones(2, requires_grad=True)\nr = torch.tensor([1.0], requires_grad=True)"),
    Entry("state_dict", "method", "tensor_dict", _W + "m = torch.nn.Linear(2, 2)\nr = m.state_dict()"),
    Entry("torch.nn.ModuleList", "function", "module_container", _W + "m = torch.nn.Linear(2, 2)\nr = torch.nn.ModuleList([m])"),
    Entry("torch.nn.ModuleDict", "function", "module_container", _W + "m = torch.nn.Linear(2, 2)\nr = torch.nn.ModuleDict({'a': m})"),
    Entry("torch.nn.Sequential", "function", "module_container", _W + "m = torch.nn.Linear(2, 2)\nr = torch.nn.Sequential(m)"),
    Entry("torch.nn.Sequential", "function", "module_chain",
          _W + "m = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.Sigmoid())\nr = m(w)"),
    Entry("subscript_assignment", "syntax", "inplace", _W + "r = w.detach()\nr[0] = 1"),
    Entry("requires_grad_", "method", "requires_grad", "import torch\nw = torch.ones(2)\nr = w.requires_grad_()"),
    Entry("inplace=True", "syntax", "inplace", _W + "r = w.detach()\ntorch.nn.functional.relu(r, inplace=True)"),
    Entry("torch.no_grad", "function", "grad_off", _W + "with torch.no_grad():\n    r = torch.sigmoid(w)"),
    Entry("torch.inference_mode", "function", "grad_off", _W + "with torch.inference_mode():\n    r = torch.sigmoid(w)"),
    Entry("torch.autograd.no_grad", "function", "grad_off", _W + "with torch.autograd.no_grad():\n    r = torch.sigmoid(w)"),
    Entry("torch.set_grad_enabled", "function", "grad_switch",
          _W + "with torch.set_grad_enabled(False):\n    r = torch.sigmoid(w)"),
    Entry("torch.is_grad_enabled", "function", "grad_mode_test",
          _W + "if not torch.is_grad_enabled():\n    r = torch.sigmoid(w)"),
    Entry("torch.cuda.is_available", "function", "cuda_test",
          _CUDA + "if torch.cuda.is_available():\n    torch.cuda.synchronize()\nr = h.numpy()"),
    Entry("type", "attribute", "device_type",
          _CUDA + "if w.device.type == 'cuda':\n    torch.cuda.synchronize()\nr = h.numpy()"),
    Entry("is_cuda", "attribute", "cuda_flag",
          _CUDA + "if w.is_cuda:\n    torch.cuda.synchronize()\nr = h.numpy()"),
    Entry("torch.is_inference_mode_enabled", "function", "inference_mode_test",
          _W + "if torch.is_inference_mode_enabled():\n    r = torch.sigmoid(w)"),
    Entry("torch.enable_grad", "function", "grad_on",
          _W + "if not torch.is_grad_enabled():\n    with torch.enable_grad():\n        r = torch.sigmoid(w)"),
    Entry("expand", "method", "overlapping", _W + "r = w.expand(3, 2)"),
    Entry("expand_as", "method", "overlapping", _W + "r = w.expand_as(torch.ones(3, 2))"),
    Entry("torch.broadcast_to", "function", "overlapping", _W + "r = torch.broadcast_to(w, (3, 2))"),
    Entry("broadcast_to", "method", "overlapping", _W + "r = w.broadcast_to((3, 2))"),
    Entry("torch.meshgrid", "function", "overlapping_each",
          _W + "u = torch.ones(3)\nr, q = torch.meshgrid(w, u, indexing='ij')"),
    Entry("chunk", "method", "multi_output_view", _W + "r, _ = w.chunk(2)"),
    Entry("split", "method", "multi_output_view", _W + "r, _ = w.split(1)"),
    Entry("unbind", "method", "multi_output_view", _W + "r, _ = w.unbind()"),
    Entry("split_with_sizes", "method", "multi_output_view", _W + "r, _ = w.split_with_sizes([1, 1])"),
    Entry("torch.chunk", "function", "multi_output_view", _W + "r, _ = torch.chunk(w, 2)"),
    Entry("torch.split", "function", "multi_output_view", _W + "r, _ = torch.split(w, 1)"),
    Entry("torch.unbind", "function", "multi_output_view", _W + "r, _ = torch.unbind(w)"),
    Entry("iteration", "syntax", "multi_output_view", _W + "for r in w:\n    pass"),
    Entry("fill_", "method", "uniform_write", _W + "r = w.expand(3, 2)\nr.fill_(0)"),
    Entry("zero_", "method", "uniform_write", _W + "r = w.expand(3, 2)\nr.zero_()"),
    Entry("masked_fill_", "method", "unmasked_overlap", _W + "r = w.expand(3, 2)\nr.masked_fill_(r > 0, 0)"),
) + tuple(
    Entry(name, "method", "overwrites", _W + "r = w.detach()\nr.%s(%s)" % (name, arguments))
    for name, arguments in (("fill_", "0.5"), ("zero_", ""), ("normal_", ""), ("uniform_", ""), ("random_", "0, 4"),
                            ("bernoulli_", "0.5"), ("exponential_", ""), ("geometric_", "0.5"),
                            ("log_normal_", ""), ("cauchy_", ""), ("copy_", "torch.zeros(2)"))
) + tuple(
    Entry("torch.nn.init." + name, "function", "overwrites", _W + "r = w.detach()\ntorch.nn.init.%s(r%s)"
          % (name, arguments))
    for name, arguments in (("uniform_", ""), ("normal_", ""), ("trunc_normal_", ""), ("constant_", ", 0.5"),
                            ("zeros_", ""), ("ones_", ""))
) + tuple(
    Entry("torch.nn.init." + name, "function", "overwrites",
          "import torch\nw = torch.ones(3, 3, requires_grad=True)\nr = w.detach()\ntorch.nn.init.%s(r)" % name)
    for name in ("eye_", "xavier_uniform_", "xavier_normal_", "kaiming_uniform_", "kaiming_normal_", "orthogonal_")
) + (
    Entry("data", "attribute", "unversioned", _W + "r = w.data"),
    Entry("register_buffer", "method", "registers",
          "import torch\nclass M(torch.nn.Module):\n    def __init__(self):\n        super().__init__()\n"
          "        self.register_buffer('r', torch.ones(2))\nm = M()\nr = m.r"),
    Entry("register_parameter", "method", "registers",
          "import torch\nclass M(torch.nn.Module):\n    def __init__(self):\n        super().__init__()\n"
          "        self.register_parameter('r', torch.nn.Parameter(torch.ones(2)))\nm = M()\nr = m.r"),
    Entry("transpose", "method", "rearrange", _W + "r = w.transpose(0, 0)"),
    Entry("t", "method", "rearrange", _W + "r = w.t()"),
    Entry("permute", "method", "rearrange", _W + "r = w.permute(0)"),
    Entry("swapaxes", "method", "rearrange", _W + "r = w.swapaxes(0, 0)"),
    Entry("swapdims", "method", "rearrange", _W + "r = w.swapdims(0, 0)"),
    Entry("movedim", "method", "rearrange", _W + "r = w.movedim(0, 0)"),
    Entry("moveaxis", "method", "rearrange", _W + "r = w.moveaxis(0, 0)"),
    Entry("T", "attribute", "rearrange", _W + "r = w.T"),
    Entry("mT", "attribute", "rearrange", "import torch\nw = torch.ones(2, 2, requires_grad=True)\nr = w.mT"),
    Entry("H", "attribute", "rearrange", _W + "r = w.H"),
    Entry("mH", "attribute", "rearrange", "import torch\nw = torch.ones(2, 2, requires_grad=True)\nr = w.mH"),
    Entry("argmax", "method", "index_result", _W + "r = w.argmax()"),
    Entry("torch.argmax", "function", "index_result", _W + "r = torch.argmax(w)"),
    Entry("argmin", "method", "index_result", _W + "r = w.argmin()"),
    Entry("torch.argmin", "function", "index_result", _W + "r = torch.argmin(w)"),
    Entry("argsort", "method", "index_result", _W + "r = w.argsort()"),
    Entry("torch.argsort", "function", "index_result", _W + "r = torch.argsort(w)"),
) + tuple(
    Entry(name, where, "values_indices", _W + ("r = w.%s" if where == "method" else "r = torch.%s") % call)
    for method, call_args in (("sort", "()"), ("topk", "(1)"), ("kthvalue", "(1)"), ("mode", "()"),
                              ("cummax", "(0)"), ("cummin", "(0)"))
    for name, where, call in ((method, "method", method + call_args),
                              ("torch." + method, "function", method + ("(w" + (", " if call_args != "()" else "")
                                                                        + call_args[1:])))
) + tuple(
    Entry(name, where, "values_indices_with_dim", _W + ("r = w.%s(0)" if where == "method" else "r = torch.%s(w, 0)")
          % method)
    for method in ("max", "min", "median", "nanmedian")
    for name, where in ((method, "method"), ("torch." + method, "function"))
) + (
    Entry("T", "attribute", "array_view", _A + "r = w.T"),
    Entry("type_as", "method", "move", _W + "r = w.type_as(w)"),
) + tuple(
    Entry("numpy." + name, "function", "array_constructor", "import numpy\nr = numpy.%s(%s)" % (name, arguments))
    for name, arguments in (("zeros", "3"), ("ones", "3"), ("empty", "3"), ("full", "3, 1.0"), ("arange", "3"),
                            ("linspace", "0, 1, 3"), ("eye", "3"), ("array", "[1.0]"), ("copy", "numpy.ones(3)"),
                            ("stack", "[numpy.ones(3)]"), ("concatenate", "[numpy.ones(3)]"),
                            ("zeros_like", "numpy.ones(3)"), ("ones_like", "numpy.ones(3)"),
                            ("empty_like", "numpy.ones(3)"), ("full_like", "numpy.ones(3), 2.0"),
                            ("random.rand", "3"), ("random.randn", "3"), ("random.random", "3"),
                            ("random.normal", "0.0, 1.0, 3"), ("random.uniform", "0.0, 1.0, 3"),
                            ("random.standard_normal", "3"), ("random.permutation", "3"), ("random.randint", "0, 3, 3"),
                            ("random.choice", "3, 2"))
) + (
    # a method only ``numpy.random.default_rng()`` generators have: integer draws (indices)
    Entry("numpy.random.integers", "function", "array_constructor",
          "import numpy\ng = numpy.random.default_rng(0)\nr = g.integers(0, 3, 3)"),
) + tuple(
    # NumPy's elementwise functions: a new array of an array, of its floating dtype
    Entry("numpy." + name, "function", "array_elementwise", _A + "r = numpy.%s(w%s)" % (name, more))
    for name, more in (("sin", ""), ("cos", ""), ("tan", ""), ("tanh", ""), ("exp", ""), ("expm1", ""), ("log", ""),
                       ("log1p", ""), ("log2", ""), ("log10", ""), ("sqrt", ""), ("square", ""), ("abs", ""),
                       ("absolute", ""), ("negative", ""), ("floor", ""), ("ceil", ""), ("round", ""), ("rint", ""),
                       ("clip", ", 0.0, 1.0"), ("maximum", ", 0.0"), ("minimum", ", 0.0"))
) + tuple(
    Entry("numpy.random." + name, "function", "random_generator",
          "import numpy\ng = numpy.random.%s(0)\nr = g.random(3)" % name)
    for name in ("default_rng", "RandomState")
) + tuple(
    Entry(package + name, "function", "blank", "import torch, numpy\nr = %s%s(3%s)" % (package, name, fill))
    for package in ("torch.", "numpy.") for name, fill in (("zeros", ""), ("ones", ""), ("empty", ""), ("full", ", 1.0"))
) + tuple(
    Entry(name, "method", role, _A + "r = w.%s(%s)" % (name, arguments))
    for role, methods in (
        ("array_inplace", (("sort", ""), ("fill", "0.0"), ("partition", "1"), ("put", "[0], [1.0]"))),
        ("array_view", (("reshape", "-1"), ("ravel", ""), ("view", ""), ("transpose", ""), ("swapaxes", "0, 0"),
                        ("squeeze", ""))),
        ("array_copy", (("copy", ""), ("astype", "numpy.float32"), ("flatten", ""))))
    for name, arguments in methods
) + tuple(
    # a method no list, ndarray or other look-alike has: calling it proves the receiver a tensor
    # even where only an annotation said so before (``w.float()`` is not such a proof)
    Entry(method, "method", "tensor_only", "import torch\ndef f(r: torch.Tensor):\n    r.%s()\n    return r" % method)
    for method in ("detach", "detach_", "requires_grad_", "retain_grad", "new_tensor", "new_zeros", "new_ones",
                   "new_empty", "new_full")
) + tuple(
    # a reduction over every element, with no dim given: a 0-d tensor (what ``torch.stack`` may gather)
    Entry(name, where, "full_reduction", _W + ("r = w.%s()" if where == "method" else "r = %s(w)") % name.split(".")[-1]
          if where == "method" else _W + "r = %s(w)" % name)
    for reduction in ("sum", "mean", "prod", "amax", "amin", "std", "var", "nansum", "nanmean", "all", "any",
                      "count_nonzero")
    for name, where in ((reduction, "method"), ("torch." + reduction, "function"))
) + tuple(
    Entry(reduction, "method", "full_reduction", _W + "r = w.%s()" % reduction) for reduction in ("max", "min")
) + tuple(
    # with no dim given, the index into the flattened tensor: a 0-d tensor
    Entry(name, where, "full_reduction", _W + ("r = w.%s()" if where == "method" else "r = torch.%s(w)") % reduction)
    for reduction in ("argmax", "argmin") for name, where in ((reduction, "method"), ("torch." + reduction, "function"))
) + tuple(
    Entry(name, where, role, _W + "r = %s" % call)
    for name, where, role, call in (
        ("torch.arange", "function", "one_dim", "torch.arange(3)"),
        ("torch.randperm", "function", "one_dim", "torch.randperm(3)"),
        ("torch.linspace", "function", "one_dim", "torch.linspace(0, 1, 3)"),
        ("torch.masked_select", "function", "one_dim", "torch.masked_select(w, w > 0)"),
        ("masked_select", "method", "one_dim", "w.masked_select(w > 0)"),
        ("unique", "method", "one_dim_alone", "w.unique()"), ("flatten", "method", "one_dim_alone", "w.flatten()"),
        ("ravel", "method", "one_dim_alone", "w.ravel()"))
) + tuple(
    # a functional loss left at its default reduction (or ``reduction="mean"``/``"sum"``): a 0-d tensor
    Entry("torch.nn.functional." + loss, "function", role, _L % loss)
    for role in ("full_reduction", "loss")
    for loss in ("mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss", "nll_loss", "cross_entropy",
                 "binary_cross_entropy", "binary_cross_entropy_with_logits", "kl_div", "soft_margin_loss",
                 "poisson_nll_loss", "gaussian_nll_loss", "hinge_embedding_loss", "margin_ranking_loss",
                 "cosine_embedding_loss", "triplet_margin_loss", "multilabel_soft_margin_loss")
) + tuple(
    # an elementwise method or a move: the result has the receiver's shape (a 0-d one stays 0-d)
    Entry(method, "method", "keeps_shape", _W + "s = w.sum()\nr = s.%s()" % method)
    for method in ("detach", "clone", "float", "double", "half", "bfloat16", "cpu", "cuda", "to", "abs", "neg", "exp",
                   "log", "sqrt", "square", "sigmoid", "tanh", "relu")
)


def _index() -> Dict[Tuple[str, str], frozenset]:
    roles: Dict[Tuple[str, str], set] = {}
    for entry in HAND_TABLE:
        roles.setdefault((entry.where, entry.name), set()).add(entry.role)
    return {key: frozenset(value) for key, value in roles.items()}


_ROLES = _index()
_NONE: frozenset = frozenset()


def role_of(where: str, name: str) -> frozenset:
    """The roles of ``name`` (a method, attribute, function or package): empty when unknown."""
    return _ROLES.get((where, name), _NONE)
