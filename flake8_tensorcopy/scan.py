"""The cheap first look at a file: a walk of the stdlib ast flake8 already built.

It sees where a rule could report (the names of calls and attributes, the
events of ``EVENTS``) and the traits of ``TRAITS``; a rule's ``wants`` (rules/base.py) matches
them against what the rule subscribes to, so most files never reach the model. It imports
neither LibCST nor torch (the flake8 plugin imports the engine only when a file needs it).
"""

import ast
from typing import Dict, FrozenSet, Iterator, List, Optional, Set, Tuple

from flake8_tensorcopy.knowledge.conventions import any_loss_named, training_call
from flake8_tensorcopy.data import INPLACE_METHODS
from flake8_tensorcopy.knowledge.table import CONTAINER_GROWTH, RUNNING_STATISTICS

_ARRAY_LIBRARIES = frozenset({"torch", "numpy"})

# The longest line the engine analyses (engine.py says why): checked before this scan, which
# would take seconds on a megabyte-long line.
MAX_LINE_CHARS = 10_000

# numpy methods and functions that write their array in place.
NUMPY_INPLACE_METHODS = frozenset({"sort", "fill", "put", "partition", "resize", "itemset"})
NUMPY_INPLACE_FUNCTIONS = frozenset({"numpy.copyto", "numpy.random.shuffle", "numpy.put", "numpy.place",
                                     "numpy.putmask", "numpy.fill_diagonal"})

# Names of calls that write something in place (the model's write events, model/transfer.py, have the full story).
WRITE_CALLS = (
    INPLACE_METHODS
    | NUMPY_INPLACE_METHODS
    | {name.rsplit(".", 1)[-1] for name in NUMPY_INPLACE_FUNCTIONS}
    | {"step", "load_state_dict"}
)
# Calls that write gradients in place (a backward adds into those that exist; ``zero_grad``;
# ``clip_grad_norm_`` ends with ``_``): writes where a gradient is read (``g = p.grad``).
GRADIENT_WRITE_CALLS = frozenset({"backward", "zero_grad"})

# Methods only torch.Tensor has among common types: calling one proves the receiver is a
# tensor, and the result is a tensor too (the analysis's evidence). They prove it without any
# import of torch, so a file with neither these nor an import of torch or numpy is skipped.
TENSOR_ONLY_METHODS = frozenset({"detach", "detach_", "new_tensor", "new_zeros", "new_ones", "new_empty",
                                 "new_full", "requires_grad_", "type_as"})
# Calls whose results are tensors whatever the receiver's module imported: a model passed in
# (``model.state_dict()``, ``model.parameters()``) is evidence of tensors without any import.
TENSOR_SOURCE_METHODS = frozenset({"state_dict", "parameters", "named_parameters", "buffers", "named_buffers"})


# The kinds of syntax where a rule's hazard can arise (``Rule.events``), each with what the scan
# must see for it to happen: a rule's gate is derived from these, so a new event needs an entry
# here and an example in tests/test_gate.py.
EVENTS = {
    "sharing": "an in-place write: ``x.add_()``, ``a[i] =``, ``a +=``, ``out=``, ``opt.step()``, a "
               "training call or a function of the module that writes (any call, where the file hands such "
               "a function or a writing lambda on as a value: ``load(a, prepare=scale_)``), or a read of a layer's running "
               "statistics (``bn.running_mean``: its call writes them), a gradient read (``.grad``) where a "
               "backward or ``zero_grad`` writes gradients (alias facts are observed only after one)",
    "identity comparison": "``a is b`` / ``a is not b`` between two non-constants, or a comparison "
                           "with an ``id(...)`` operand",
    "accumulation": "inside a loop, ``acc += v`` (also ``d[k] += v``), ``d[k] = v`` at a key a loop's name gives, "
                    "``acc = acc <op> v`` (``0.9 * acc + 0.1 "
                    "* v`` too) or ``acc.append(v)``; a list comprehension bound to a name (``losses = [step(b) "
                    "for b in batches]``); "
                    "in a method, the same into its own object (``self.total += v``: each call an iteration)",
    "in-place write": "a statement that writes in place: ``a[i] = v``, ``a op= v`` (or a call with "
                      "``out=``/``inplace=``); in-place methods are subscribed to as ``calls``",
    "non-blocking copy": "a call with ``non_blocking=True``: an asynchronous copy (the model's "
                         "``copy-start`` events)",
}

# What must hold of a file (or a body) for a rule to report there (``Rule.requires``).
TRAITS = {
    "tensors": "it may hold tensors: imports torch or numpy, or calls a tensor-only method "
               "(``.detach()``) or a tensor source (``.state_dict()``, ``.parameters()``)",
    "training": "it trains or names a loss: calls ``backward``/``step``, or a call or a name is "
                "spelled as a loss (``val_loss``, ``F.mse_loss``)",
}


class Features:
    """What a cheap walk of the stdlib ast saw: enough to know which rules may report."""

    __slots__ = ("called", "attributes", "events", "traits")

    def __init__(self, called: Set[str], attributes: Set[str], events: FrozenSet[str], traits: FrozenSet[str]):
        self.called = called  # last names of every call, import aliases resolved
        self.attributes = attributes  # every attribute name read or written
        self.events = events  # the ``EVENTS`` that may happen
        self.traits = traits  # the ``TRAITS`` that hold

    @property
    def may_hold_tensors(self) -> bool:
        """Every rule requires it: the flake8 face checks it before importing the engine."""
        return "tensors" in self.traits


_UNSEEN = object()
# per ast node type, the fields that may hold nodes (None for a type that is no ast node)
_CHILD_FIELDS: Dict[type, Optional[Tuple[str, ...]]] = {}


def _child_fields(node_type: type) -> Optional[Tuple[str, ...]]:
    fields = _CHILD_FIELDS.get(node_type, _UNSEEN)
    if fields is _UNSEEN:
        fields = _CHILD_FIELDS[node_type] = (
            tuple(name for name in node_type._fields if name != "ctx") if issubclass(node_type, ast.AST) else None)
    return fields


def children(node: ast.AST) -> List[ast.AST]:
    """The nodes directly below ``node``, in ``ast.iter_child_nodes``'s order, without the
    ``Load``/``Store``/``Del`` contexts (the model asks for them on every statement it solves)."""
    found = []
    for name in _child_fields(type(node)) or ():
        value = getattr(node, name, None)
        if type(value) is list:
            found.extend(child for child in value if isinstance(child, ast.AST))
        elif isinstance(value, ast.AST):
            found.append(value)
    return found


def descendants(tree: ast.AST) -> Iterator[ast.AST]:
    """``tree`` and every node below it, in no set order: the nodes of ``ast.walk`` without
    the ``Load``/``Store``/``Del`` contexts, about 2.5 times faster (this walk is the plugin's
    cost on every file of a project)."""
    stack = [tree]
    while stack:
        node = stack.pop()
        fields = _child_fields(type(node))
        if fields is None:
            continue  # a name, a constant's value or None in a field or list of a node
        yield node
        for name in fields:
            value = getattr(node, name, None)
            if type(value) is list:
                stack.extend(value)
            elif value is not None:
                stack.append(value)


_LOOPS = (ast.For, ast.AsyncFor, ast.While)
_IDENTITY = (ast.Is, ast.IsNot)


class _Collector:
    """Facts gathered from one part of the tree (a top-level statement, or the whole file)."""

    def __init__(self):
        self.called: Set[str] = set()
        self.attributes: Set[str] = set()
        self.names: Set[str] = set()
        self.identity_tests = False
        self.renamed: Dict[str, str] = {}
        self.writes = False
        self.loops = False
        self.accumulates = False  # ``acc += v`` or ``acc = acc <op> v`` (``acc.append(v)``: in ``called``)
        self.keys: Set[str] = set()  # the names in the keys of item assignments (``history[step] = v``)
        self.loop_names: Set[str] = set()  # the names ``for`` loops bind
        self.imports_arrays = False
        self.non_blocking = False  # a call with ``non_blocking=True``
        self.stores_on_self = False  # for a method: stores on its first parameter (``_stores_on``)
        self.accumulates_on_self = False  # for a method: ``self.total += v`` and the like (``_accumulates_on``)
        self.builds_inplace = False  # a call with ``inplace=``: ``F.relu(x, inplace=True)``, ``nn.ReLU(inplace=True)``
        self.values: Set[str] = set()  # names read as values, not called (``transform=jitter``: a function handed on)
        self.attribute_values: Set[str] = set()  # attributes read, not called (``finish = self._scale``: a method handed on)
        self.lambda_writes = False  # a lambda writes in place (``apply(w, lambda t: t.add_(1))``)

    def walk_method(self, method: ast.AST) -> None:
        """Walk a method, noting whether it stores on ``self`` (the walk needs those from all)."""
        arguments = method.args.posonlyargs + method.args.args
        self.walk(method, arguments[0].arg if arguments else None)

    def walk(self, tree: ast.AST, receiver: Optional[str] = None) -> None:
        """Collect from every node under ``tree``; with ``receiver`` (a method's ``self``),
        note whether anything is stored on it."""
        called_names = set()  # the ``Name`` and ``Attribute`` nodes called (``f`` in ``f(x)``): not handed on as values
        for node in descendants(tree):
            node_type = type(node)
            if receiver is not None and node_type in _STORING and not self.stores_on_self:
                self.stores_on_self = _stores_on(node, receiver)
            if receiver is not None and not self.accumulates_on_self and node_type in _STORING:
                self.accumulates_on_self = _accumulates_on(node, receiver)
            if node_type is ast.Name:
                self.names.add(node.id)
                if id(node) not in called_names:
                    self.values.add(node.id)
            elif node_type is ast.Attribute:
                self.attributes.add(node.attr)
                if id(node) not in called_names:
                    self.attribute_values.add(node.attr)
            elif node_type is ast.Call:
                func = node.func
                if type(func) is ast.Attribute:
                    self.called.add(func.attr)
                    called_names.add(id(func))
                elif type(func) is ast.Name:
                    self.called.add(func.id)
                    called_names.add(id(func))
                if node.keywords:
                    if not self.builds_inplace:
                        self.builds_inplace = any(keyword.arg == "inplace" for keyword in node.keywords)
                    if not self.writes:
                        self.writes = self.builds_inplace or any(keyword.arg == "out" for keyword in node.keywords)
                    if not self.non_blocking:
                        self.non_blocking = any(keyword.arg == "non_blocking" and type(keyword.value) is ast.Constant
                                                and keyword.value.value is True for keyword in node.keywords)
            elif node_type is ast.Lambda and not self.lambda_writes:
                inner = _Collector()
                inner.walk(node.body)
                self.lambda_writes = inner.writes_in_place(inner.called, frozenset())
            elif node_type is ast.Subscript and type(node.ctx) is ast.Load:
                self.called.add("__getitem__")  # ``ds[i]`` calls a ``__getitem__`` the file may define
            elif node_type is ast.Compare and not self.identity_tests:
                self.identity_tests = _identity_test(node)
            elif node_type is ast.AugAssign:
                self.writes = True
                self.accumulates = True  # into a name, an attribute or an item (``stats["loss"] += v``)
            elif node_type is ast.Assign:
                if not self.writes:
                    self.writes = any(type(target) is ast.Subscript for target in node.targets)
                if not self.accumulates:
                    self.accumulates = _accumulates(node)
                self.keys.update(name for target in node.targets for name in _key_names(target))
                if type(node.value) is ast.ListComp and len(node.targets) == 1 and type(node.targets[0]) is ast.Name:
                    self.loops = self.accumulates = True  # ``losses = [step(b) for b in batches]``: a loop appending
            elif node_type is ast.AnnAssign and type(node.value) is ast.ListComp and type(node.target) is ast.Name:
                self.loops = self.accumulates = True  # ``losses: List[Tensor] = [step(b) for b in batches]``
            elif node_type in _LOOPS:
                self.loops = True
                if node_type is not ast.While:  # ``for step, batch in ...``: names a key may take anew each pass
                    self.loop_names.update(name.id for name in ast.walk(node.target) if type(name) is ast.Name)
            elif node_type is ast.ImportFrom:
                module = (node.module or "").split(".", 1)[0]
                self.imports_arrays = self.imports_arrays or (module in _ARRAY_LIBRARIES and not node.level)
                for alias in node.names:
                    if alias.asname:
                        self.renamed[alias.asname] = alias.name
            elif node_type is ast.Import:
                self.imports_arrays = self.imports_arrays or any(
                    alias.name.split(".", 1)[0] in _ARRAY_LIBRARIES for alias in node.names
                )

    def absorb(self, other: "_Collector") -> None:
        self.called |= other.called
        self.attributes |= other.attributes
        self.names |= other.names
        self.identity_tests = self.identity_tests or other.identity_tests
        self.renamed.update(other.renamed)
        self.writes = self.writes or other.writes
        self.loops = self.loops or other.loops
        self.accumulates = self.accumulates or other.accumulates
        self.keys |= other.keys
        self.loop_names |= other.loop_names
        self.imports_arrays = self.imports_arrays or other.imports_arrays
        self.non_blocking = self.non_blocking or other.non_blocking
        self.accumulates_on_self = self.accumulates_on_self or other.accumulates_on_self
        self.builds_inplace = self.builds_inplace or other.builds_inplace
        self.values |= other.values
        self.attribute_values |= other.attribute_values
        self.lambda_writes = self.lambda_writes or other.lambda_writes

    def resolved_calls(self, renamed: Dict[str, str]) -> Set[str]:
        return self.called | {renamed[name] for name in self.called.intersection(renamed)}

    def writes_in_place(self, called: Set[str], writers: Set[str]) -> bool:
        return (
            self.writes
            or not called.isdisjoint(WRITE_CALLS)
            or not called.isdisjoint(writers)
            or "grad" in self.attributes and not called.isdisjoint(GRADIENT_WRITE_CALLS)
            or any(name.endswith("_") and not name.endswith("__") for name in called)  # nn.init.zeros_, torch.relu_
            or any(training_call(name) for name in called)
            # a layer's running statistics read: its call (which the scan cannot tell apart) writes them
            or not self.attributes.isdisjoint(RUNNING_STATISTICS)
        )

    def features(self, renamed: Dict[str, str], imports_arrays: bool, writers: Set[str] = frozenset(),
                 writers_handed_on: bool = False) -> Features:
        """With ``writers_handed_on`` (the file hands a function that writes to other code:
        ``load(a, transform=jitter)``), any call here may be of that function, through a parameter
        or an attribute (``self.transform(x)``)."""
        called = self.resolved_calls(renamed)
        events = set()
        any_call_writes = writers_handed_on and bool(called)
        if self.writes_in_place(called, writers) or any_call_writes:
            events.add("sharing")
        if self.writes or not called.isdisjoint(writers) or any_call_writes:  # a helper of the file may write what it is handed
            events.add("in-place write")
        if self.identity_tests:
            events.add("identity comparison")
        if self.non_blocking:
            events.add("non-blocking copy")
        keyed_anew = not self.keys.isdisjoint(self.loop_names)  # ``history[step] = v`` in ``for step, ...``
        if self.loops and (self.accumulates or keyed_anew or not called.isdisjoint(CONTAINER_GROWTH)) \
                or self.accumulates_on_self:
            events.add("accumulation")
        traits = set()
        if (imports_arrays or not called.isdisjoint(TENSOR_ONLY_METHODS)
                or not called.isdisjoint(TENSOR_SOURCE_METHODS)):
            traits.add("tensors")
        if not called.isdisjoint(("backward", "step")) or any_loss_named(called) or any_loss_named(self.names):
            traits.add("training")
        return Features(called, self.attributes, frozenset(events), frozenset(traits))


_STORING = (ast.Call, ast.Assign, ast.AnnAssign, ast.AugAssign)
# Calls that put a value into the container they are called on.
_CONTAINER_STORES = frozenset({"append", "extend", "insert", "update", "setdefault", "add", "appendleft"})


def _stores_on(node: ast.AST, receiver: str) -> bool:
    """Whether ``node`` stores something on ``receiver`` (a method's ``self``): assigns one of
    its attributes (``self.w = ...``, ``self.w[k] = ...``, ``self.a.b += ...``), registers one
    (``self.register_buffer``), or puts a value into a container held there
    (``self.kept.append(x)``): what other methods of the class may later read."""
    node_type = type(node)
    if node_type is ast.Call:
        func = node.func
        return type(func) is ast.Attribute and (
            func.attr.startswith("register_") or (func.attr in _CONTAINER_STORES and _on(func.value, receiver)))
    if node_type is ast.Assign:
        return any(type(target) in (ast.Attribute, ast.Subscript) and _on(target, receiver)
                   for target in node.targets)
    if node_type in (ast.AnnAssign, ast.AugAssign):
        return type(node.target) in (ast.Attribute, ast.Subscript) and _on(node.target, receiver)
    return False


def _accumulates_on(node: ast.AST, receiver: str) -> bool:
    """Whether ``node`` adds to what ``receiver`` holds: ``self.total += v``,
    ``self.total = self.total + v``, ``self.losses.append(v)``."""
    node_type = type(node)
    if node_type is ast.AugAssign:
        return _on(node.target, receiver)
    if node_type is ast.Assign:
        return _accumulates(node) and any(_on(target, receiver) for target in node.targets)
    if node_type is ast.Call:
        func = node.func
        return type(func) is ast.Attribute and func.attr in ("append", "extend") and _on(func.value, receiver)
    return False


def _dotted(node: ast.AST) -> Optional[str]:
    """``self.total`` for that attribute path (None for anything else)."""
    if type(node) is ast.Name:
        return node.id
    if type(node) is ast.Attribute:
        base = _dotted(node.value)
        return base and f"{base}.{node.attr}"
    return None


def _on(node: ast.AST, receiver: str) -> bool:
    """Whether ``node`` is an attribute (or item) path rooted at an attribute of ``receiver``."""
    held = False
    while type(node) in (ast.Attribute, ast.Subscript):
        held = held or type(node) is ast.Attribute
        node = node.value
    return held and type(node) is ast.Name and node.id == receiver


def _identity_test(node: ast.Compare) -> bool:
    """``a is b`` between two values (``x is None`` and friends cannot be about tensors), or
    ``id(a) == id(b)``: the comparisons the "identity comparison" event stands for."""
    operands = [node.left, *node.comparators]
    if any(type(operand) is ast.Call and type(operand.func) is ast.Name and operand.func.id == "id"
           for operand in operands):
        return True
    return any(type(op) in _IDENTITY for op in node.ops) and not any(type(operand) is ast.Constant
                                                                    for operand in operands)


def _key_names(target) -> Iterator[str]:
    """The names in the key of an item assignment's target (``step`` of ``history[step] = v``)."""
    if type(target) is ast.Subscript:
        yield from (node.id for node in ast.walk(target.slice) if type(node) is ast.Name)


def _accumulates(node: ast.Assign) -> bool:
    """``acc = acc + v``, ``ema = 0.9 * ema + 0.1 * v`` (``accumulation_added``; ``acc`` a name,
    an attribute path or a constant item of one, read directly or as ``d.get(k, 0)``)."""
    return any(path is not None and accumulation_added(node.value, path, _read_path) is not None
               for path in map(_read_path, node.targets))


def accumulation_added(expression, target: str, read_path):
    """What an arithmetic expression adds to the accumulator ``target`` it reads (``read_path``
    names what a node reads): ``v`` of ``acc + v`` (any operator, either side), ``0.9 * acc +
    0.1 * v``, ``(acc * n + v) / (n + 1)``; all of ``v if acc is None else 0.9 * acc + 0.1 * v``,
    where either branch holds what is kept; None where the expression is no such step."""
    if type(expression) is ast.IfExp:
        steps = accumulation_added(expression.body, target, read_path) or accumulation_added(
            expression.orelse, target, read_path)
        return expression if steps is not None else None
    if type(expression) is not ast.BinOp:
        return None
    if type(expression.op) in (ast.Mult, ast.Div):  # ``(acc + v) / 2``: the step inside a factor
        inner = accumulation_added(expression.left, target, read_path)
        if inner is None and type(expression.op) is ast.Mult:
            inner = accumulation_added(expression.right, target, read_path)
        if inner is not None:
            return inner
    sides = (expression.left, expression.right)
    for side, other in (sides, sides[::-1]):
        if _scaled(side, target, read_path):
            return _unscaled(other)
    return None


def _scaled(expression, target: str, read_path) -> bool:
    """Whether ``expression`` is the accumulator read, times or over other factors at most
    (``0.9 * ema``, ``mean * n``)."""
    if type(expression) is ast.BinOp and type(expression.op) in (ast.Mult, ast.Div):
        return _scaled(expression.left, target, read_path) or type(expression.op) is ast.Mult and _scaled(
            expression.right, target, read_path)
    return read_path(expression) == target


def _unscaled(expression):
    """``v`` of ``0.1 * v`` or ``v / 2`` (a constant factor left out), else the expression itself."""
    if type(expression) is ast.BinOp and type(expression.op) in (ast.Mult, ast.Div):
        if type(expression.left) is ast.Constant and type(expression.op) is ast.Mult:
            return _unscaled(expression.right)
        if type(expression.right) is ast.Constant:
            return _unscaled(expression.left)
    return expression


def _read_path(node: ast.AST) -> Optional[str]:
    """``self.total``, ``stats['loss']`` (also as ``stats.get('loss', 0)``), else None."""
    if type(node) is ast.Call and type(node.func) is ast.Attribute and node.func.attr == "get" \
            and 1 <= len(node.args) <= 2 and not node.keywords:
        node = ast.Subscript(value=node.func.value, slice=node.args[0])
    if type(node) is ast.Subscript and type(node.slice) is ast.Constant:
        base = _dotted(node.value)
        return base and f"{base}[{node.slice.value!r}]"
    return _dotted(node)


def scan(tree: ast.AST) -> Features:
    """One walk of the ast flake8 already built (about a tenth of a LibCST parse).

    Most files of a project have nothing any rule could flag; they never reach LibCST.
    """
    return scan_statements(tree).file


class Scanned:
    """What the first look found: the file's features, each top-level statement's, and each
    method's of the top-level classes (``methods``: (method node, features, stores on self?))."""

    __slots__ = ("file", "statements", "methods")

    def __init__(self, file, statements, methods):
        self.file = file
        self.statements = statements
        self.methods = methods


def scan_statements(tree: ast.AST) -> Scanned:
    """The file's features and those of each top-level statement (imports seen file-wide), so
    that the engine can leave out of the LibCST parse the functions no rule could report on."""
    statements = tree.body if isinstance(tree, ast.Module) else [tree]
    whole = _Collector()
    parts = []
    methods = []  # per top-level statement: [(method, its collector)] for classes
    for statement in statements:
        part = _Collector()
        class_methods = []
        if type(statement) is ast.ClassDef:
            for node in statement.decorator_list + statement.bases + [k.value for k in statement.keywords]:
                part.walk(node)
            for child in statement.body:
                if type(child) in (ast.FunctionDef, ast.AsyncFunctionDef):
                    method = _Collector()
                    method.walk_method(child)
                    part.absorb(method)
                    class_methods.append((child, method))
                else:
                    part.walk(child)
            if part.builds_inplace:  # ``self.act = nn.ReLU(inplace=True)`` in ``__init__``: a call of it writes
                for _, method in class_methods:
                    method.writes = True
        else:
            part.walk(statement)
        whole.absorb(part)
        parts.append(part)
        methods.append(class_methods)
    imports_arrays = whole.imports_arrays
    # Classes of this module whose call writes in place (``forward`` or ``__call__`` does): a class
    # building one (``self.norm = InplaceSumNorm()``) may write, at any call of it, what it is given.
    writer_calls = {
        (statement.name, method.name)
        for statement, class_methods in zip(statements, methods) if type(statement) is ast.ClassDef
        for method, collector in class_methods
        if method.name in ("forward", "__call__")
        and collector.writes_in_place(collector.resolved_calls(whole.renamed), frozenset())
    }
    writer_classes = {name for name, _ in writer_calls}
    for part, class_methods in zip(parts, methods):
        if class_methods and not part.resolved_calls(whole.renamed).isdisjoint(writer_classes):
            for _, method in class_methods:
                method.writes = True
            part.writes = True
    file_features = whole.features(whole.renamed, imports_arrays)
    # Functions of this module that write something: calling one may write its argument.
    writers = {
        statement.name
        for statement, part in zip(statements, parts)
        if type(statement) in (ast.FunctionDef, ast.AsyncFunctionDef)
        and part.writes_in_place(part.resolved_calls(whole.renamed), frozenset())
    }
    # Methods of this module's classes that write something: read as a value (``self._scale``), a
    # later call of that value may write its argument.
    writer_methods = {
        method.name for class_methods in methods for method, collector in class_methods
        if collector.writes_in_place(collector.resolved_calls(whole.renamed), frozenset())
    }
    # a writer handed on as a value, a lambda that writes, a writing method bound to its object, or
    # an object of the file whose ``__call__`` writes (``Dataset(clips, AddNoise(0.1))``): a call of
    # a parameter may be one
    handed_on = whole.lambda_writes or not writers.isdisjoint(whole.values) \
        or not writer_methods.isdisjoint(whole.attribute_values) or not whole.resolved_calls(
            whole.renamed).isdisjoint({name for name, method in writer_calls if method == "__call__"})
    statement_features = [part.features(whole.renamed, imports_arrays, writers, handed_on) for part in parts]
    method_features = [
        [(method, collector.features(whole.renamed, imports_arrays, writers, handed_on), collector.stores_on_self)
         for method, collector in class_methods]
        for class_methods in methods
    ]
    return Scanned(file_features, statement_features, method_features)
