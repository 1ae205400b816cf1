"""One abstract interpreter for a file: places, values, flow graphs, one transfer, one solver,
summaries, classes and an event store. Rules query it; none walks the tree itself.

Read in this order (README.md says more): ``places`` (where values live), ``values`` (what a place
holds, one join, one widening), ``flow`` (the flow graph of a function, built once over the
stdlib ast), ``transfer`` (what one operation does to a state, driven by ``knowledge``), ``solver``
(worklist to a fixpoint, events from each block's last run), ``summaries`` (functions over symbolic
parameters), ``classes`` (attributes across methods), ``events`` (the store rules query).

``build_model(tree)`` solves a module: module-level code first (its calls summarise the callees
on demand, callees first), then every function with what the module's callers pass to it, then
once more the functions whose callers' join grew after they were solved.
"""

import ast
import sys
from typing import Dict, List, Optional

from flake8_tensorcopy.knowledge import DEFAULT_DTYPE, role_of
from flake8_tensorcopy.knowledge.conventions import loss_named, words
from flake8_tensorcopy.model.classes import ClassInfo, is_property, property_accessor, stores_elsewhere
from flake8_tensorcopy.model.disputes import disputes
from flake8_tensorcopy.model.events import EventStore
from flake8_tensorcopy.model import layout
from flake8_tensorcopy.model.flow import build_graph
from flake8_tensorcopy.model.places import place_of
from flake8_tensorcopy.model.solver import commit_or_record, record, solve, solve_recording
from flake8_tensorcopy.model.summaries import Summary
from flake8_tensorcopy.model.transfer import (
    FROZEN, HANDED, IDENTITY_TESTS, PARAMETER_CALLS, HELD_WRITTEN_THROUGH, SAVED_IF_GRAD, IN_EVAL, REFILLS, TENSOR, UPDATES_RUNNING_STATS, WITHIN_PASSED, WRITES_INPUT, WRITTEN_THROUGH, Transfer,
    grad_disabled_by, grad_enabled_by, is_none, private,
)
from flake8_tensorcopy.scan import children, descendants
from flake8_tensorcopy.model.values import (
    BESIDE_FRESH, EMPTY, ENTRY, FORWARDED, IN_FLIGHT, INTEGER, NO_GRAD, NONE, NUMBER, SAVED, UNKNOWN, Evidence, Value, held_within, join,
    holds_a_graph, join_all, kinds, storages_held,
)

_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
_PYTHON_SCALARS = frozenset(("int", "number", "bool", "str", "none"))
_CONSTANT_VALUES = {type(None): NONE, bool: Value(kinds("bool")), int: INTEGER, float: NUMBER, str: Value(kinds("str"))}
# a subscripted container annotation (as the file's imports qualify it) -> the kind it says
_CONTAINER_ANNOTATIONS = {
    **{spelling: "list" for spelling in ("list", "typing.List", "typing.Sequence", "typing.MutableSequence",
                                         "collections.abc.Sequence", "collections.abc.MutableSequence")},
    **{spelling: "tuple" for spelling in ("tuple", "typing.Tuple")},
    **{spelling: "dict" for spelling in ("dict", "typing.Dict", "typing.Mapping", "typing.MutableMapping",
                                         "collections.abc.Mapping", "collections.abc.MutableMapping",
                                         "typing.OrderedDict", "collections.OrderedDict")},
}
# a scalar annotation (as the file's imports qualify it) -> the kind it says
_SCALAR_ANNOTATIONS = {spelling: kind for name, kind in (("int", "int"), ("float", "number"), ("bool", "bool"))
                       for spelling in (name, "builtins." + name)}
# the facts of a dtype (narrowed or made), which a caller's value carries into the parameter
_DTYPE_FACTS = ("dtype:", "dtypes:", "!dtypes:")
# what a layer is, made so at its construction, and its mode where every caller set it (``.eval()``)
_OBJECT_FACTS = frozenset(("parameter_free", WRITES_INPUT, UPDATES_RUNNING_STATS, IN_EVAL, FROZEN))
# packages none of whose classes is an ``nn.Module`` (``typing.NamedTuple``, ``abc.ABC``); a base
# of no package (``object``, ``dict``) is a builtin
_NOT_MODULE_PACKAGES = frozenset(("numpy",)) | frozenset(getattr(sys, "stdlib_module_names", (  # (3.10+)
    "builtins", "typing", "abc", "enum", "collections", "dataclasses", "argparse", "types", "threading", "unittest",
    "contextlib", "json", "pathlib", "logging", "multiprocessing", "queue", "io")))
# torch's classes that are modules outside ``torch.nn`` (``class_is_module`` knows ``torch.nn.*``);
# any other torch base (``torch.utils.data.Dataset``, ``torch.autograd.Function``) is no module
_TORCH_MODULE_BASES = ("torch.optim.swa_utils.AveragedModel", "torch.jit.ScriptModule", "torch.ao.", "torch.nn.")


def _may_be_a_module_base(base: str) -> bool:
    """A base imported from a package the model cannot see, which may be an ``nn.Module``."""
    if "." not in base or base.split(".")[0] in _NOT_MODULE_PACKAGES:
        return False
    return not base.startswith("torch.") or base.startswith(_TORCH_MODULE_BASES)


_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)
_IN_PROGRESS = object()


class FunctionInfo:
    """A function, method, lambda or the module's own code, and what the model knows of it."""

    def __init__(self, node, name: str, parent: Optional["FunctionInfo"], owner: Optional[ClassInfo]):
        self.node = node
        self.name = name
        self.parent = parent
        self.owner = owner  # the class of a method
        self._graph = None
        arguments = getattr(node, "args", None)
        positional = (arguments.posonlyargs + arguments.args) if arguments is not None else []
        self.parameters = positional + ([arguments.vararg] if arguments and arguments.vararg else []) + (
            arguments.kwonlyargs if arguments is not None else []) + (
            [arguments.kwarg] if arguments and arguments.kwarg else [])  # ``**options``: a dict of what is left
        self.names = [parameter.arg for parameter in self.parameters]
        self.rest_keywords = bool(arguments and arguments.kwarg)  # the last name gathers the keywords no other takes
        decorators = {place_of(item) for item in getattr(node, "decorator_list", ())}
        self.receiver_offset = 1 if owner is not None and self.names and "staticmethod" not in decorators else 0
        self.closure: Optional[dict] = None  # the enclosing state where it was defined
        self.summary = None
        self.flagged_summaries: dict = {}  # per set of the receiver's flags (``FLAG``), the summary under them
        self.flags_read = None  # the receiver's flags its summary depends on (``Transfer.receiver_flags``)
        self.passed: Optional[List[Optional[Value]]] = None  # what the module's callers pass
        self.states: Optional[list] = None  # final in-states per block
        self.solved_with = None  # the ``passed`` its final states were solved with
        self.used_as_tensor: set = set()  # parameters some path uses as only a tensor can be
        self.disputed: set = set()  # parameters a call site of the file passes surely not a tensor
        self.backpropagated: set = set()  # names of unknown values some path calls ``.backward()`` on
        self.called_parameters: set = set()  # unknown parameters some path calls on arguments
        self.copied_parameters: set = set()  # unknown parameters some path deep-copies
        self.runs_backward = False  # some path runs a backward
        self.kept_by_callers: Dict[int, bool] = {}  # parameter -> some call site of the file keeps its argument
        # parameter -> some call site of the file reads the name it passed there again after the call
        self.read_again_by_callers: Dict[int, bool] = {}
        # None: no call site of the file seen; False: every one runs with grad off (``torch.no_grad()``)
        self.grad_at_calls: Optional[bool] = None
        self.runs_a_backward: Optional[bool] = None  # calls backward() or autograd.grad itself (Transfer)
        self.comprehensions: Optional[list] = None  # its comprehensions, found once (Transfer)
        # per class of the file whose instances' attributes its final solve read, those attributes
        # then: a construction solved later (a dataclass's fields) may have changed them since
        self.attributes_seen: Dict[str, dict] = {}
        self.name_uses: Optional[dict] = None  # per name, its loads and global/nonlocal declarations (``_name_uses``)
        self._bound_names: Optional[set] = None
        self.captured: Optional[frozenset] = None  # the names it reads from enclosing functions (``_captured_values``)

    @property
    def bound_names(self) -> set:
        """The names its body binds (``_bound_names``), walked once: a nested function is solved
        again for every state its enclosing function reaches it with."""
        if self._bound_names is None:
            self._bound_names = _bound_names(self.node)
        return self._bound_names

    @property
    def trained_parameters(self) -> frozenset:
        """Unknown parameters called on arguments in a function that backpropagates (the modules
        it trains, ``def fit(model, opt, loader)``) or that deep-copies them (a module snapshot
        after a forward, ``model(x); copy.deepcopy(model)``), by use."""
        if self.runs_backward:
            return frozenset(self.called_parameters)
        return frozenset(self.called_parameters & self.copied_parameters)

    @property
    def graph(self):
        if self._graph is None:
            self._graph = build_graph(self.node)
        return self._graph


class Model:
    def __init__(self, tree: ast.Module, default_dtype: str = DEFAULT_DTYPE, default_device: str = ""):
        self.tree = tree
        self.default_dtype = default_dtype  # of factories given no dtype: "" where the file sets it
        self.default_device = default_device  # of factories given no device: "" where it may not be the host
        self.events = EventStore()
        self.functions: Dict[int, FunctionInfo] = {}
        self.functions_by_name: Dict[str, FunctionInfo] = {}
        self.classes: Dict[str, ClassInfo] = {}
        self.imports = _imports(tree)
        self.definitions = self._definitions()
        self.module = FunctionInfo(tree, "<module>", None, None)
        self.module_state: Optional[dict] = None
        self.module_variables = _bound_names(tree) - set(self.definitions)  # names the module's code binds
        self.read_before_module_ran: set = set()  # module variables a summary read before the module's code ran
        self._lines = None
        self._rebound: Optional[Dict[int, set]] = None
        self._comprehensions = None
        self._stores_elsewhere = None
        self._module_classes = None
        self.named_tests: Dict[str, tuple] = {}  # ``fp = x.is_floating_point()``: the test and what it tested
        self._alias_operations: Optional[dict] = None
        # every alias-making operation run, summaries' included: made id -> (ast node, spelling)
        self.alias_makers: Dict[tuple, tuple] = {}
        self.view_parts: Dict[tuple, frozenset] = {}  # a view's alias id -> the first-dimension positions it spans
        # a factory's call site -> the function calling it and what it passed (its closures run on it there)
        self.factory_calls: Dict[tuple, tuple] = {}
        self.container_aliases: set = set()  # the made ids of those that hand their aliases out as a new container's items
        # (made id, spelling) of aliases a call hands back of memory its callee holds, no argument's (a cache's)
        self.held_by_callee: set = set()
        self.answers: dict = {}  # what queries work out once per file and several rules ask (rules/sharing.py)
        # functions and classes registered, closures a summary set: what a block run earlier may
        # not have seen (``solve_function`` then records its blocks again)
        self.changes = 0
        self._declared_global: Optional[frozenset] = None  # ``declared_global_anywhere``, found once
        self._post_init_fields: Dict[str, dict] = {}  # per dataclass, the fields its ``__post_init__`` was summarised with

    # ----- the file's functions and classes
    def function_of(self, node, parent: Optional[FunctionInfo], owner: Optional[ClassInfo] = None):
        found = self.functions.get(id(node))
        if found is not None:
            return found
        if type(node) is ast.ClassDef:
            return self.class_of(node)
        if type(node) is ast.Lambda:
            name = f"<lambda {node.lineno}:{node.col_offset}>"
        else:
            name = node.name
        if owner is not None:
            name = f"{owner.name}.{name}"
        elif parent is not None and parent is not self.module:
            name = f"{parent.name}.{name}"
        info = FunctionInfo(node, name, parent, owner)
        self.functions[id(node)] = info
        self.functions_by_name.setdefault(name, info)
        self.changes += 1
        return info

    def class_of(self, node: ast.ClassDef) -> ClassInfo:
        info = self.classes.get(node.name)
        if info is not None and info.node is node:
            return info
        bases = [self.qualify(place_of(base) or "") for base in node.bases]
        info = ClassInfo(node, bases)
        self.classes[node.name] = info
        self.changes += 1
        for statement in node.body:
            if type(statement) in _FUNCTIONS:
                accessor = property_accessor(statement)  # ``@x.setter``: kept apart from the getter
                info.methods[statement.name + accessor] = self.function_of(statement, self.module, info)
                if is_property(statement):
                    info.properties.add(statement.name)
        self.functions[id(node)] = info
        return info

    def qualify(self, dotted: str) -> str:
        head, _, rest = dotted.partition(".")
        if head in self.imports:
            return self.imports[head] + ("." + rest if rest else "")
        return "class:" + dotted if dotted in self.classes or head in self._class_names() else dotted

    def _class_names(self):
        """The classes the module's body defines (asked at every qualification, worked out once)."""
        if self._module_classes is None:
            self._module_classes = {statement.name for statement in self.tree.body if type(statement) is ast.ClassDef}
        return self._module_classes

    def class_is_module(self, info: ClassInfo, seen=()) -> bool:
        for base in info.bases:
            if base.startswith("torch.nn.") or base.startswith("nn."):
                return True
            local = self.classes.get(base[6:]) if base.startswith("class:") else None
            if local is not None and local is not info and local not in seen and self.class_is_module(local, seen + (info,)):
                return True
        return False

    def may_be_module(self, value: Value) -> bool:
        """A module, or an object of a class of the file built on a class imported from elsewhere,
        which the model cannot see (``class VAE(AutoEncoder)``): its ``training`` may be a
        module's mode."""
        if "module" in value.kinds:
            return True
        for kind in value.kinds:
            info = self.classes.get(kind[7:]) if kind.startswith("object:") else None
            if info is not None and any(_may_be_a_module_base(base)
                                        for holder in info.lineage(self.classes) for base in holder.bases):
                return True
        return False

    def property_of(self, class_name: str, name: str) -> Optional[FunctionInfo]:
        """The getter run where ``obj.name`` is read, ``name`` a property of the class or a base."""
        info = self.classes.get(class_name)
        if info is None or not any(name in other.properties for other in self.classes.values()):
            return None
        holder = next((holder for holder in info.lineage(self.classes) if name in holder.methods), None)
        return holder.methods[name] if holder is not None and name in holder.properties else None

    @property
    def stores_elsewhere(self):
        """Per attribute name, the statements of the file storing it elsewhere than on a method's receiver."""
        if self._stores_elsewhere is None:
            self._stores_elsewhere = stores_elsewhere(self.tree)
        return self._stores_elsewhere

    def method_of(self, class_name: str, method: str) -> Optional[FunctionInfo]:
        info = self.classes.get(class_name)
        return info.method(method, self.classes) if info is not None else None

    def autograd_forward(self, class_name: str) -> Optional[FunctionInfo]:
        """The ``forward`` of a class of the file built on ``torch.autograd.Function``, which its
        ``apply`` runs (role ``custom_function`` of a base in its lineage)."""
        info = self.classes.get(class_name)
        if info is None or not any("custom_function" in role_of("function", base)
                                   for holder in info.lineage(self.classes) for base in holder.bases):
            return None
        return self.method_of(class_name, "forward")

    def instance_attribute(self, class_name: str, attribute: str) -> Optional[Value]:
        info = self.classes.get(class_name)
        if info is None:
            return None
        for holder in info.lineage(self.classes):  # ``self.lin`` a base class of the file built
            self.read_class(holder)
            found = holder.attribute(attribute)
            if found is not None:
                return found
        method = info.method(attribute, self.classes)
        if method is not None:
            return Value(kinds("function"), qual="local:" + method.name)
        return None

    def read_class(self, info: ClassInfo) -> None:
        """Fold every method's stores on ``self`` into the class, ``__init__`` first."""
        if info.read:
            return
        info.read = True
        info.is_module = self.class_is_module(info)
        methods = sorted(info.methods.values(), key=lambda method: method.node.name != "__init__")
        for method in methods:
            self.summary(method)

    def _fold_stores(self, function: FunctionInfo, summary: Summary) -> None:
        owner = function.owner
        if owner is None or not function.receiver_offset:
            return
        from flake8_tensorcopy.model.summaries import Instantiation

        passed = function.passed or [None] * len(function.names)
        handed = [value if index < function.receiver_offset
                  else _handed(owner, function.name, function.names[index], value) for index, value in enumerate(passed)]
        instance = Instantiation(function.name, handed, lambda value, sites: UNKNOWN)
        for path, value in summary.stores.items():
            kept = instance.value(value)
            given = [(passed[index], handed[index].storages) for index in range(function.receiver_offset, len(passed))
                     if (HANDED, owner.name, function.name, function.names[index]) in kept.storages]
            if len(given) == 1 and given[0][0] is not None and not _passed_facts(kept) and kept.storages <= given[0][1]:
                # ``self.master = master``: what the callers handed keeps their dtype on the object
                kept = kept._replace(facts=kept.facts | _passed_facts(given[0][0]) - _OBJECT_FACTS)
            owner.store(path, kept)

    @staticmethod
    def pass_fields(info: ClassInfo, bound: Dict[str, Value]) -> None:
        """Join what one construction of a dataclass passes into its fields: its generated
        ``__init__`` stores each on the instance, which code after the construction reads."""
        for field, value in bound.items():
            known = info.passed_fields.get(field)
            info.passed_fields[field] = value if known is None else join(known, value)
        Model._fold_fields(info)

    @staticmethod
    def _fold_fields(info: ClassInfo) -> None:
        """Store what the constructions pass into each field, as the instance keeps it: not a field
        its ``__post_init__`` stores again (``self.feats = self.feats.clone()``), whose store is
        what the instance holds after its construction."""
        post_init = info.methods.get("__post_init__")
        restored = post_init.summary.stores if post_init is not None and isinstance(post_init.summary, Summary) else {}
        for field, value in info.passed_fields.items():
            if field not in restored:
                info.store(field, Model.field_as_passed(info, field))

    @staticmethod
    def field_as_passed(info: ClassInfo, field: str) -> Value:
        """A dataclass's field as its constructions passed it (as ``__post_init__`` reads it)."""
        return _handed(info, "__init__", field, info.passed_fields.get(field))

    # ----- names outside a function
    def declared_global_anywhere(self) -> frozenset:
        """The names some function of the file declares ``global`` (it may bind them anew)."""
        if self._declared_global is None:
            self._declared_global = frozenset(name for node in ast.walk(self.tree) if type(node) is ast.Global
                                              for name in node.names)
        return self._declared_global

    def outer_value(self, function: FunctionInfo, name: str) -> Optional[Value]:
        current = function
        if function is not None and name not in function.graph.declared_global:
            while current is not None and current is not self.module:
                closure = current.closure
                if closure is not None and name in closure and current.parent is not self.module:
                    return closure[name]
                current = current.parent
        if self.module_state is not None and name in self.module_state:
            return self.module_state[name]
        if self.module_state is None and name in self.module_variables:
            self.read_before_module_ran.add(name)
        return self.definitions.get(name)

    def rebound_elsewhere(self, function: FunctionInfo, name: str, local: bool) -> bool:
        """Whether another function may rebind ``name`` where ``function`` reads it: a module
        name some function binds under ``global`` or through ``globals()[...]``, or a local
        one a nested function binds under ``nonlocal``."""
        if self._rebound is None:
            self._rebound = _rebinding(self)
        if local and function is not self.module:
            return name in self._rebound.get(id(function.node), ())
        rebound = self._rebound.get(id(self.tree), ())
        return name in rebound or EVERY_NAME in rebound

    def _definitions(self) -> Dict[str, Value]:
        """What the module's names are bound to before its code runs: its imports, functions
        and classes (summaries solved before the module's own code need them)."""
        found = {name: Value(kinds("pymodule"), qual=qual) for name, qual in self.imports.items()}
        for statement in self.tree.body:
            if type(statement) in _FUNCTIONS:
                found[statement.name] = Value(kinds("function"), qual="local:" + statement.name)
            elif type(statement) is ast.ClassDef:
                found[statement.name] = Value(kinds("class"), qual="class:" + statement.name)
        return found

    # ----- summaries and callers
    def bind_arguments(self, function: FunctionInfo, arguments, keywords) -> List[Optional[Value]]:
        actuals: List[Optional[Value]] = [None] * len(function.names)
        positional = len(function.node.args.posonlyargs) + len(function.node.args.args)
        for index, value in enumerate(arguments[:positional]):
            actuals[index] = value
        rest = arguments[positional:]
        if function.node.args.vararg is not None and all(type(value) is Value for value in rest):  # ``*args``
            actuals[positional] = Value(kinds("tuple"), items=(("*", join_all(rest)),) if rest else ())
        rest_keywords = {}
        for name, value in _keywords_spread(keywords).items():
            if name in function.names[:len(function.names) - function.rest_keywords]:
                actuals[function.names.index(name)] = value
            elif name is not None:
                rest_keywords[name] = value
        if function.rest_keywords and all(type(value) is Value for value in rest_keywords.values()):
            actuals[-1] = Value(kinds("dict"), items=tuple((repr(name), value) for name, value in rest_keywords.items()))
        spread = keywords.get(None)
        if type(spread) is Value and spread.kind_from and spread.items is None:
            # in a summary, ``inner(**kw)`` of the mapping a caller passes: each parameter it leaves
            # unbound takes the item of ``kw`` at that name, whatever each call site puts there, and
            # its own ``**options`` is that mapping where nothing else goes there
            if function.rest_keywords and not rest_keywords:
                actuals[-1] = spread
            for index in range(len(arguments[:positional]), len(function.names) - function.rest_keywords):
                if actuals[index] is None and index >= function.receiver_offset:
                    actuals[index] = Value(kinds("?"), storages=spread.storages, kind_from=spread.kind_from,
                                           grad_from=spread.grad_from,
                                           facts=frozenset((WITHIN_PASSED + repr(function.names[index]),)))
        return actuals

    @staticmethod
    def with_defaults(function: FunctionInfo, actuals: List[Optional[Value]], node) -> List[Optional[Value]]:
        """What a direct call of a private helper (``self._combine(a, b)``, a nested function)
        passes, its omitted parameters at their constant defaults: the file's call sites are all
        its callers, so a parameter none of them passes holds its default (``chunk=None``: the
        ``if chunk is not None`` branch runs for no call)."""
        name = getattr(function.node, "name", "")
        if not private(function) or type(node) is not ast.Call or place_of(node.func) is None \
                or not place_of(node.func).endswith(name) or any(type(a) is ast.Starred for a in node.args) \
                or any(keyword.arg is None for keyword in node.keywords):
            return actuals
        arguments = function.node.args
        positional = arguments.posonlyargs + arguments.args
        defaults = dict(zip(positional[len(positional) - len(arguments.defaults):], arguments.defaults))
        defaults.update((parameter, default) for parameter, default in zip(arguments.kwonlyargs, arguments.kw_defaults)
                        if default is not None)
        filled = list(actuals)
        for parameter, default in defaults.items():
            index = function.names.index(parameter.arg)
            if filled[index] is None and type(default) is ast.Constant:
                filled[index] = _CONSTANT_VALUES.get(type(default.value), UNKNOWN)
        return filled

    def passed_to(self, function: FunctionInfo, actuals: List[Optional[Value]]) -> None:
        """Join what one call site passes into the function's parameters (kind, grad, device, dtype)."""
        known = function.passed or [None] * len(function.names)
        for index, value in enumerate(actuals):
            if value is None:
                continue
            kept = Value(value.kinds, grad=value.grad, graph=value.graph, device=value.device, storages=value.storages,
                         qual=value.qual, why=tuple((c, Evidence.CALLERS if e.strong else e) for c, e in value.why),
                         facts=_passed_facts(value) | _passed_beside_fresh(value, actuals),
                         items=self.held_by_passed_optimizer(function, value, actuals) or _passed_items(value))
            known[index] = kept if known[index] is None else join(known[index], kept)
        function.passed = known

    def note_disputes(self, function: FunctionInfo, caller: FunctionInfo, node, arguments, keywords=None) -> None:
        """The parameters this call passes what is surely not a tensor (``disputes``); a call
        that unpacks ``*args`` or ``**kwargs`` says nothing."""
        if type(node) is not ast.Call or any(type(argument) is ast.Starred for argument in node.args) or any(
                keyword.arg is None for keyword in node.keywords):
            return
        shift = len(arguments) - len(node.args)
        if shift < 0:
            return
        nodes = self.bind_arguments(function, [None] * shift + list(node.args),
                                    {keyword.arg: keyword.value for keyword in node.keywords})
        values = self.bind_arguments(function, arguments, keywords or {})
        for index, argument in enumerate(nodes):
            if argument is not None and disputes(argument, values[index] if index < len(values) else None, caller):
                function.disputed.add(index)

    @staticmethod
    def held_by_passed_optimizer(function: FunctionInfo, value: Value, actuals: List[Optional[Value]]):
        """An optimizer a caller passes holds, inside the callee, the parameters of each module
        the same call passes beside it (``train(model, opt)`` with ``opt`` built from ``model``):
        its ``step()`` there writes that parameter's tensors."""
        held = value.all_items() if "optimizer" in value.kinds and value.items is not None else None
        if held is None or not held.storages:
            return None
        passed_beside = frozenset(("param", index, function.name) for index, other in enumerate(actuals)
                                  if other is not None and other is not value and other.storages & held.storages)
        return (("*", held._replace(storages=held.storages | passed_beside, made=EMPTY)),)

    def entry_state(self, function: FunctionInfo, symbolic: bool, flags: frozenset = EMPTY) -> dict:
        state: dict = {IN_FLIGHT: frozenset((ENTRY,))}
        arguments = getattr(function.node, "args", None)
        gathering = {id(arguments.vararg), id(arguments.kwarg)} if arguments is not None else set()
        for index, parameter in enumerate(function.parameters):
            # ``*rows: Tensor``, ``**named: Tensor`` annotate each item, not the tuple or dict gathering them
            annotation_node = None if id(parameter) in gathering else parameter.annotation
            storages = frozenset((("param", index, function.name),))
            if not symbolic and function.owner is not None and 0 < function.receiver_offset <= index:
                # what the method was handed, as the instance may keep it (``_handed``): the same
                # object the class's other methods reach through ``self``
                storages |= {(HANDED, function.owner.name, function.name, function.names[index])}
            symbol = frozenset(((function.name, index),)) if symbolic else EMPTY
            if index == 0 and function.receiver_offset:
                owner = function.owner
                module = self.class_is_module(owner)
                value = Value(frozenset({"object:" + owner.name} | ({"module"} if module else set())),
                              grad=module, storages=storages, facts=flags)
            elif not symbolic and annotation_node is None and index in function.trained_parameters and (
                    not function.passed or function.passed[index] is None or "?" in function.passed[index].kinds):
                value = Value(kinds("module"), grad=True, storages=storages, why=(("kind", Evidence.TRAINED),))
            elif not symbolic and annotation_node is None and _loss_parameter(function, index):
                value = Value(TENSOR, grad=True, graph=True, storages=storages,
                              why=(("kind", Evidence.LOSS), ("grad", Evidence.LOSS)))
            elif symbolic or not function.passed or function.passed[index] is None:
                # in a summary, what a call passes, laid out as that call's value is (``layout``)
                value = Value(kinds("?"), storages=storages, kind_from=symbol, grad_from=symbol,
                              facts=frozenset((layout.AS_PASSED,)) if symbolic else EMPTY)
            else:
                value = function.passed[index]
                # a module is one object wherever it goes: the one model every caller builds and
                # passes is the one this function reaches (``EMA(model)`` then ``ema.update(model)``);
                # callers passing several say nothing of which one a call gets
                built = frozenset(storage for storage in value.storages if type(storage[0]) is int) \
                    if "module" in value.kinds else EMPTY
                value = value._replace(storages=storages | (built if len(built) == 1 else EMPTY))
                if value.items is not None and "dict" in value.kinds:  # a caller's record: the items this parameter holds
                    value = value._replace(items=tuple((key, item._replace(storages=frozenset(
                        held_within("item", storage, *_constant_key(key, item, value)) for storage in storages)))
                        for key, item in value.items))
            annotation = self.annotation_name(annotation_node)
            # a caller of this file passes something else than a tensor: a tensor annotation is no
            # evidence (a module passed to a parameter annotated as one disputes nothing)
            disputed = not symbolic and _disputed(function, index) and self.may_name_a_tensor(annotation_node)
            if disputed:
                annotation = None
            tensor_annotation = annotation in ("torch.Tensor", "Tensor")
            if value.kinds == TENSOR and value.evidence("kind") is Evidence.CALLERS and value.evidence("grad") is None:
                # every caller of the file passes a tensor it knows (``torch.zeros(4)``): its grad is theirs;
                # its kind stays as weakly known as the annotation says (other modules may pass a list)
                value = value._replace(why=value.why + (("grad", Evidence.CALLERS),))
            if tensor_annotation and not symbolic:
                value = value._replace(kinds=TENSOR, why=(("kind", Evidence.ANNOTATION),) + tuple(
                    pair for pair in value.why if pair[0] != "kind"))  # undisputed: callers elsewhere rely on it too
            elif tensor_annotation and "?" in value.kinds:
                value = value._replace(kinds=value.kinds - {"?"} | TENSOR, why=(("kind", Evidence.ANNOTATION),))
            elif annotation == "numpy.ndarray" and "?" in value.kinds:  # what it does to an array, callers see
                value = value._replace(kinds=value.kinds - {"?"} | {"ndarray"}, why=(("kind", Evidence.ANNOTATION),))
            elif annotation and annotation.startswith("class:") and annotation[6:] in self.classes and "?" in value.kinds:
                # an instance of a class of the file (a module where the class is one: ``parameters()``, its layers)
                module = self.class_is_module(self.classes[annotation[6:]])
                value = value._replace(kinds=frozenset({"object:" + annotation[6:]} | ({"module"} if module else set())),
                                       grad=value.grad or module, why=(("kind", Evidence.ANNOTATION),))
            elif "?" in value.kinds and annotation_node is not None and not disputed:
                value = self.annotated_torch(annotation_node, value)
            elif annotation in _SCALAR_ANNOTATIONS and value.evidence("kind") is not None \
                    and not value.evidence("kind").strong:  # ``n: float`` over an item callers may hold as a tensor
                value = value._replace(kinds=kinds(_SCALAR_ANNOTATIONS[annotation]), grad=False, graph=False,
                                       why=(("kind", Evidence.ANNOTATION),))
            if not symbolic and index in function.used_as_tensor and annotation_node is not None:
                value = value._replace(kinds=TENSOR, why=(("kind", Evidence.ANNOTATION),) + tuple(
                    pair for pair in value.why if pair[0] != "kind"))  # a use after a site proves nothing there
            if symbolic and value.grad_from and value.kinds and value.kinds <= _PYTHON_SCALARS:
                # ``extent: int``: no caller's value makes what the summary computes of it require grad
                # (``b[:, y] * (y / extent)`` saves nothing of ``b`` for a call passing a number)
                value = value._replace(grad_from=EMPTY)
            state[parameter.arg] = value
        if any(grad_disabled_by(self, decorator) for decorator in getattr(function.node, "decorator_list", ())):
            state[NO_GRAD] = frozenset(("decorator",))
        elif function.owner is not None and self.autograd_forward(function.owner.name) is function:
            state[NO_GRAD] = frozenset(("autograd_function",))  # autograd runs a custom Function's forward so
        elif not symbolic and function.grad_at_calls is False \
                and not (function.owner is not None and getattr(function.node, "name", "") == "forward") \
                and not any(grad_enabled_by(self, decorator) for decorator in getattr(function.node, "decorator_list", ())):
            # every caller of the file turned grad off (the file's callers decide, as for what they pass),
            # unless it is a module's ``forward``, which ``model(x)`` runs wherever the model is trained,
            # or it turns grad on itself (``@torch.enable_grad()``)
            state[NO_GRAD] = frozenset(("callers",))
        if not symbolic and function.owner is not None and function.receiver_offset:  # a write under no_grad counts too
            kept = self.saved_by_forward(function)
            if kept:
                state[SAVED] = kept
        return state

    def saved_by_forward(self, function: FunctionInfo) -> frozenset:
        """What the class's ``forward`` saved for backward and keeps on ``self`` (``self.gates =
        torch.sigmoid(h)``), as another method of the object finds it: called after a forward
        (``model(x); model.apply_mask(m)``), it reaches memory the forward's backward needs."""
        owner = function.owner
        forward = self.method_of(owner.name, "forward")
        if forward is None or forward is function or function.name.rpartition(".")[2] == "__init__":
            return EMPTY
        summary = self.summary(forward)
        if summary is None or not summary.saved:
            return EMPTY
        # a forward's outputs kept on ``self`` (by this class or a base class of the file whose
        # forward it inherits): not its parameters or buffers, which other methods update on
        # purpose between passes (a constraint, pruning, a cache reset)
        kept = frozenset()
        for holder in owner.lineage(self.classes):
            self.read_class(holder)
            kept |= frozenset().union(*(storages_held(value) for value in holder.attributes.values()
                                        if holds_a_graph(value)))
        return summary.saved & kept

    def annotation_name(self, annotation) -> Optional[str]:
        """What a plain annotation names, qualified through the file's imports (``th.Tensor``,
        ``'torch.Tensor'`` -> ``torch.Tensor``); None for none or a subscripted one."""
        if type(annotation) is ast.Constant and type(annotation.value) is str:
            try:
                annotation = ast.parse(annotation.value, mode="eval").body
            except SyntaxError:
                return None
        dotted = place_of(annotation) if annotation is not None else None
        return self.qualify(dotted) if dotted else None

    def may_name_a_tensor(self, annotation) -> bool:
        """Whether an annotation admits a tensor (``Tensor``, ``Optional[Tensor]``,
        ``nn.Parameter``, one the model cannot read); not ``nn.Module``, ``int``, ``List[...]``."""
        if annotation is None or self.annotation_name(annotation) in ("torch.Tensor", "Tensor"):
            return True
        read = self.annotated_torch(annotation, UNKNOWN)
        return read is UNKNOWN or "tensor" in read.kinds

    def annotated_torch(self, annotation: ast.AST, value: Value) -> Value:
        """A parameter annotated ``Optional[Tensor]`` is a tensor or None, ``nn.Parameter`` a leaf
        that requires grad, a torch module class (``nn.Conv1d``, ``nn.Module``) that module, ``np.ndarray``
        a NumPy array, ``List[int]`` a list, ``torch.device`` a device."""
        optional = None
        if type(annotation) is ast.Subscript and (place_of(annotation.value) or "").split(".")[-1] == "Optional":
            optional = annotation.slice
        elif type(annotation) is ast.BinOp and type(annotation.op) is ast.BitOr and is_none(annotation.right):
            optional = annotation.left
        if optional is not None:
            inner = self.annotated_torch(optional, value)
            if inner is value and self.annotation_name(optional) in ("torch.Tensor", "Tensor"):
                inner = value._replace(kinds=TENSOR, why=(("kind", Evidence.ANNOTATION),))
            return inner._replace(kinds=inner.kinds | {"none"}) if inner is not value else value
        qual = self.annotation_name(annotation) or ""
        if qual in _SCALAR_ANNOTATIONS:  # ``extent: int``: a Python number, what it multiplies keeps no gradient of it
            return value._replace(kinds=kinds(_SCALAR_ANNOTATIONS[qual]), why=(("kind", Evidence.ANNOTATION),))
        if "device" in role_of("function", qual):  # ``device: torch.device``: a device, as ``torch.device(...)`` makes
            return value._replace(kinds=frozenset({"device"}), why=(("kind", Evidence.ANNOTATION),))
        if "parameter" in role_of("function", qual):
            return value._replace(kinds=TENSOR, grad=True, why=(("kind", Evidence.ANNOTATION), ("grad", Evidence.ANNOTATION)))
        container = self.annotation_name(annotation.value) if type(annotation) is ast.Subscript else None
        if container in _CONTAINER_ANNOTATIONS:
            return self.annotated_container(annotation, _CONTAINER_ANNOTATIONS[container], value)
        if qual == "numpy.ndarray":  # what TEN201/TEN202 relate to a tensor's memory
            return value._replace(kinds=frozenset({"ndarray"}), why=(("kind", Evidence.ANNOTATION),))
        package, _, last = qual.rpartition(".")
        if last[:1].isupper() and "module" in role_of("package", package):
            return value._replace(kinds=frozenset({"module"}), grad=True, why=(("kind", Evidence.ANNOTATION),),
                                  qual=qual if qual != "torch.nn.Module" else "")
        return value

    def annotated_container(self, annotation: ast.Subscript, kind: str, value: Value) -> Value:
        """``List[Tensor]``, ``Tuple[Tensor, ...]``, ``Dict[str, Tensor]``: a container whose every
        item is what its item annotation says (``[*]``, each an object of the container's); only
        tensor items are kept, other item kinds say nothing the rules use."""
        elements = annotation.slice.elts if type(annotation.slice) is ast.Tuple else [annotation.slice]
        if kind == "dict":
            elements = elements[1:]
        elements = [element for element in elements if not (type(element) is ast.Constant and element.value is Ellipsis)]
        held = frozenset(held_within("item", storage) for storage in value.storages)
        items = [self.annotated_torch(element, Value(kinds("?"), storages=held)) for element in elements]
        items = [item._replace(kinds=TENSOR, why=(("kind", Evidence.ANNOTATION),))
                 if self.annotation_name(element) in ("torch.Tensor", "Tensor") else item
                 for element, item in zip(elements, items)]
        container = value._replace(kinds=frozenset({kind}), why=(("kind", Evidence.ANNOTATION),))
        if not items or not all(item.is_tensor for item in items):
            return container
        return container._replace(items=(("*", join_all(items)),))

    def summary(self, function: FunctionInfo, flags: frozenset = EMPTY) -> Optional[Summary]:
        """The function's summary, solved now if needed; None while it is being solved. A method
        called on an instance with steady flags (``FLAG``) is solved again under them: a branch
        on a flag the instance holds the other way runs for none of its calls."""
        if flags:  # only a method's receiver has them (``Transfer.receiver_flags``)
            found = function.flagged_summaries.get(flags)
            if found is None and flags not in function.flagged_summaries:
                function.flagged_summaries[flags] = None  # in progress: a recursive call meets an unknown result
                found = function.flagged_summaries[flags] = self._summarise(function, flags)
            return found
        if function.summary is _IN_PROGRESS:
            return None
        if function.summary is not None:
            return function.summary
        function.summary = _IN_PROGRESS
        summary = function.summary = self._summarise(function)
        if function.owner is not None and function.owner.read:
            self._fold_stores(function, summary)
        return summary

    def _summarise(self, function: FunctionInfo, flags: frozenset = EMPTY) -> Summary:
        transfer = Transfer(self, function, summary_mode=True)
        states = solve(function.graph, transfer, self.entry_state(function, symbolic=True, flags=flags))
        exit_state = states[1] or {}
        in_flight = exit_state.get(IN_FLIGHT, EMPTY)
        receiver = function.names[0] + "." if function.receiver_offset else None
        return Summary(
            returns=_returned(function, exit_state),
            writes=exit_state.get("!writes", EMPTY),
            writes_at_keys=exit_state.get("!writes_keyed", EMPTY) - exit_state.get("!writes_unkeyed", EMPTY),
            item_writes=exit_state.get("!item_writes", EMPTY) - exit_state.get("!writes", EMPTY),
            items_written=exit_state.get("!items_written", EMPTY),
            keyed_items_written=exit_state.get("!keyed_items_written", EMPTY),
            items_assigned=exit_state.get("!items_assigned", EMPTY),
            stores={place[len(receiver):]: value for place, value in exit_state.items()
                    if receiver and place.startswith(receiver)} if receiver else {},
            in_flight=in_flight - {ENTRY},
            syncs=states[1] is not None and ENTRY not in in_flight,
            reads=exit_state.get("!reads", EMPTY),
            saved=exit_state.get(SAVED, EMPTY),
            saved_returned=exit_state.get("!saved_returned", EMPTY),
            backward="!backward" in exit_state,
            steps="!steps" in exit_state,
            stepped=exit_state.get("!stepped", EMPTY),
            written_through=_written_through(exit_state.get(WRITTEN_THROUGH, EMPTY)),
            writes_held=exit_state.get("!writes_held", EMPTY),
            held_written_through=exit_state.get(HELD_WRITTEN_THROUGH, EMPTY),
            reads_held=exit_state.get("!reads_held", EMPTY),
            reads_held_made=exit_state.get("!reads_held_made", EMPTY),
            closure_stores=_closure_stores(function, exit_state),
            global_stores={name: exit_state[name] for name in function.graph.declared_global
                           if type(exit_state.get(name)) is Value},
            parameter_stores=_parameter_stores(function, exit_state),
            forwarded=exit_state.get(FORWARDED, EMPTY),
            retained=exit_state.get("!retained", EMPTY),
            attribute_writes=exit_state.get("!attribute_writes", EMPTY),
            refills=exit_state.get(REFILLS, EMPTY),
            drops_grads="!drops_grads" in exit_state,
            saved_if_grad=exit_state.get(SAVED_IF_GRAD, EMPTY),
            parameter_calls=exit_state.get(PARAMETER_CALLS, EMPTY),
            identity_tests=exit_state.get(IDENTITY_TESTS, EMPTY),
        )

    # ----- the final solve
    def solve_function(self, function: FunctionInfo) -> None:
        transfer = Transfer(self, function, summary_mode=False)
        function.solved_with = (list(function.passed) if function.passed else None, function.grad_at_calls)
        function.attributes_seen = {}
        used = set(function.used_as_tensor), set(function.backpropagated), function.trained_parameters
        changes = self.changes
        states, kept = solve_recording(function.graph, transfer, self.entry_state(function, symbolic=False))
        if (function.used_as_tensor, function.backpropagated, function.trained_parameters) != used:
            # a use proves a value from its binding on
            used = set(function.used_as_tensor), set(function.backpropagated), function.trained_parameters
            changes = self.changes
            states, kept = solve_recording(function.graph, transfer, self.entry_state(function, symbolic=False))
            if (function.used_as_tensor, function.backpropagated, function.trained_parameters) != used:
                kept = None  # a block's last run may not have seen a use proved after it
        if self.changes != changes:
            kept = None  # nor a class, function or closure the solve made known after it
        function.states = states
        commit_or_record(function.graph, transfer, states, kept)

    def build(self) -> "Model":
        for statement in self.tree.body:
            if type(statement) is ast.ClassDef:
                self.class_of(statement)
            elif type(statement) in _FUNCTIONS:
                self.function_of(statement, self.module)
        for info in list(self.classes.values()):  # a class defined in a method registers as it is solved
            self.read_class(info)
        transfer = Transfer(self, self.module, summary_mode=False)
        self.module.states = solve(self.module.graph, transfer, {})
        self.module_state = self.module.states[1] or {}
        if any(_holds_torch_values(self.module_state.get(name)) or _empty_container(self.module_state.get(name))
               for name in self.read_before_module_ran):
            # ``model = nn.Linear(...)`` read by a helper the module's code calls, or ``history = []``
            # a helper fills (an unknown value then, it kept nothing of what the helper put there)
            self._forget_summaries()
            self.module.states = solve(self.module.graph, transfer, {})
            self.module_state = self.module.states[1] or {}
        record(self.module.graph, transfer, self.module.states)  # after: its code reads names it binds later here
        done = set()
        for again in range(2):  # callers first; a second round for callees whose callers' join grew
            refolded = self._refold_classes()
            if again and self.saw_other_attributes(self.module):
                # the module's code read attributes a function's construction filled since (a dataclass's fields)
                self.events.events = [event for event in self.events.events if event.function is not self.module]
                self.module.attributes_seen = {}
                self.module.states = solve(self.module.graph, transfer, {})
                self.module_state = self.module.states[1] or {}
                record(self.module.graph, transfer, self.module.states)
            pending = [info for info in reversed(list(self.functions.values()))
                       if type(info) is FunctionInfo and (id(info) not in done or info.solved_with != (info.passed, info.grad_at_calls)
                                                          or info.owner in refolded or self.saw_other_attributes(info))]
            # a nested function after the function enclosing it: it reads its outer names from the
            # state that function's final solve leaves (what its callers pass), not its summary's
            pending.sort(key=_depth)
            again = {id(info) for info in pending if id(info) in done}
            if again:  # their earlier solve's events go; the solve below records them anew
                self.events.events = [event for event in self.events.events if id(event.function) not in again]
            for info in pending:
                done.add(id(info))
                self.solve_function(info)
        return self

    def saw_other_attributes(self, function: FunctionInfo) -> bool:
        """Whether a class whose instances' attributes the function's solve read holds other
        attributes now (``b.positions`` of a dataclass another function constructs)."""
        return any(self.classes[name].attributes != seen for name, seen in function.attributes_seen.items())

    def attributes_read(self, function, class_name: str) -> None:
        """Note that ``function``'s final solve read an attribute of an instance of ``class_name``,
        held by that class or by a base class of the file (``self.betas`` a base's ``__init__``
        stores from what its callers pass, subclasses' constructions included)."""
        info = self.classes.get(class_name)
        if type(function) is not FunctionInfo or info is None:
            return
        for holder in info.lineage(self.classes):
            if holder.name not in function.attributes_seen:
                function.attributes_seen[holder.name] = dict(holder.attributes)

    def _forget_summaries(self) -> None:
        """Solve the summaries and classes again, now that the module's names are bound: those
        solved while its code ran (the helpers it calls, the classes' methods) saw none."""
        for info in self.functions.values():
            if type(info) is FunctionInfo:
                info.summary, info.flagged_summaries = None, {}
        for info in self.classes.values():
            info.read, info.attributes = False, {}
        for info in list(self.classes.values()):
            self.read_class(info)

    def _refold_classes(self) -> List[ClassInfo]:
        """Join the classes' attributes again from their methods' stores, now that more callers
        of ``__init__`` are known (the module's code, then the functions); the classes whose
        attributes changed."""
        changed = []
        for info in list(self.classes.values()):
            self._post_init_again(info)
            before, info.attributes = info.attributes, {}
            for method in info.methods.values():
                if isinstance(method.summary, Summary):
                    self._fold_stores(method, method.summary)
            self._fold_fields(info)
            if info.attributes != before:
                changed.append(info)
        return changed

    def _post_init_again(self, info: ClassInfo) -> None:
        """Summarise a dataclass's methods again where its constructions passed other fields than
        its ``__post_init__`` last saw: it reads them on ``self`` (``self.init_w =
        self.model.weight.detach()``), what it stores is made of what they hold, and the other
        methods read what it stores."""
        post_init = info.methods.get("__post_init__")
        if post_init is None or not info.passed_fields or self._post_init_fields.get(info.name) == info.passed_fields:
            return
        self._post_init_fields[info.name] = dict(info.passed_fields)
        methods = sorted(info.methods.values(), key=lambda method: method is not post_init)
        for method in methods:
            method.summary, method.flagged_summaries = None, {}
        for method in methods:
            self.summary(method)

    # ----- queries
    def _ops_by_line(self) -> Dict[int, tuple]:
        if self._lines is None:
            self._lines = {}
            functions = [self.module] + [info for info in self.functions.values() if type(info) is FunctionInfo]
            for info in functions:
                if info.states is None:
                    continue
                for block in info.graph.blocks:
                    for position, op in enumerate(block.ops):
                        line = _line_of(op)
                        if line not in self._lines or self._lines[line][0] is self.module:
                            self._lines.setdefault(line, (info, block.index, position))
        return self._lines

    def state_before(self, line: int) -> dict:
        """The final state just before the first operation on ``line``."""
        info, block, position = self._ops_by_line()[line]
        transfer = Transfer(self, info, summary_mode=False)
        state = dict(info.states[block] or {})
        for op in info.graph.blocks[block].ops[:position]:
            transfer.execute(op, state)
        return state

    def value_at(self, line: int, place: str) -> Value:
        """The value of a place (``x``, ``self.w``, ``d['a']``, ``rows[*]``: an item at a key the
        model does not follow) just before ``line`` runs."""
        info = self._ops_by_line()[line][0]
        state = self.state_before(line)
        if place in state:
            return state[place]
        transfer = Transfer(self, info, summary_mode=False)
        return transfer.evaluate(ast.parse(place.replace("[*]", "[_]"), mode="eval").body, state)

    @property
    def comprehensions(self) -> List[ast.AST]:
        """The file's comprehensions (each builds one container item by item)."""
        if self._comprehensions is None:
            self._comprehensions = [node for node in descendants(self.tree) if type(node) in _COMPREHENSIONS]
        return self._comprehensions

    def event_guards_copies(self, owner: ClassInfo, attribute: str) -> bool:
        """Whether ``self.<attribute>`` is None only before the class's first copy: only
        ``__init__`` stores None there (and leaves no copy in flight), and every other method
        that leaves copies in flight stores there an event recorded after them."""
        for method in owner.methods.values():
            summary = self.summary(method)
            if summary is None:  # still being solved: not known yet
                return False
            stored = summary.stores.get(attribute)
            if method.node.name == "__init__":
                if summary.in_flight:
                    return False
            elif stored is not None and "none" in stored.kinds:
                return False
            elif summary.in_flight and (stored is None or "event" not in stored.kinds
                                        or not summary.in_flight <= stored.pending):
                return False
        return True

    def copies_left_in_flight(self, class_name: str) -> frozenset:
        """The copies some method of the class (or of a base class) may leave in flight when it
        returns: a later call may find them still running."""
        info = self.classes.get(class_name)
        left = set()
        for owner in info.lineage(self.classes) if info is not None else ():
            for method in owner.methods.values():
                summary = self.summary(method)
                if summary is not None:
                    left |= summary.in_flight
        return frozenset(left)

    def left_in_flight(self, copy) -> bool:
        """Whether a ``copy-start`` event's copy may still run when its function returns."""
        states = copy.function.states
        exit_state = states[1] if states else None
        return exit_state is not None and copy.detail["copy"] in exit_state.get(IN_FLIGHT, EMPTY)

    def alias_steps(self, value: Value) -> List[tuple]:
        """``("line:col", operation)`` of the new objects sharing memory that ``value`` is (its
        ``Value.made`` ids as their ``alias`` events spell them: ``detach()``, ``.data``,
        ``indexing``), innermost first; a name bound to another (``y = x``) is the same object,
        not a new one. A chain (``x[0].data``) makes several at one position."""
        if self._alias_operations is None:
            self._alias_operations = {event.detail["made"]: (order, event.detail["op"])
                                      for order, event in enumerate(self.events.find("alias"))}
        steps = sorted(self._alias_operations[made] + (made,) for made in value.made
                       if made[2] != "assignment" and made in self._alias_operations)
        return [(f"{made[0]}:{made[1]}", operation) for _, operation, made in steps]

    def alias_operations(self, value: Value) -> Dict[str, str]:
        """``{"line:col": operation}`` of ``alias_steps``: where a chain made several at one
        position, the outermost (made last)."""
        return dict(self.alias_steps(value))

    def called(self) -> frozenset:
        """The names of the file's functions and methods called somewhere in it."""
        return frozenset(event.detail.get("callee") for event in self.events.find("call"))

    def exit_state(self, name: str = "<module>") -> dict:
        info = self.module if name == "<module>" else self.functions_by_name[name]
        return info.states[1] or {}


def _keywords_spread(keywords: dict) -> dict:
    """A call's keywords with ``**options`` spread into them where the dict's items have constant
    string keys (``f(**{"feats": x})``, ``opts = dict(feats=x); f(**opts)``): each binds as the
    keyword it names. Items whose keys are not known bind nothing."""
    spread = keywords.get(None)
    named = {}
    for key, item in (spread.items or ()) if spread is not None and "dict" in spread.kinds else ():
        name = ast.literal_eval(key) if key[:1] in ("'", '"') else None
        if type(name) is str and name.isidentifier():
            named[name] = item
    named.update((name, value) for name, value in keywords.items() if name is not None)
    return named


def _depth(function: FunctionInfo) -> int:
    """How many functions enclose ``function`` (0 for one the module or a class defines)."""
    depth, current = 0, function.parent
    while current is not None and type(current.node) is not ast.Module:
        depth, current = depth + 1, current.parent
    return depth


def _returned(function: FunctionInfo, exit_state: dict) -> Optional[Value]:
    """What a call of ``function`` returns: its ``return`` values, or for a generator an object
    whose items are what it yields (``list(windows(x))`` holds the views it yields)."""
    if "!yields" not in exit_state:
        return exit_state.get("!return")
    return Value(kinds("generator"), storages=frozenset((("generator", function.name),)), fresh=True,
                 items=(("*", exit_state["!yields"]),))


def _constant_key(key: str, item: Value, container: Value) -> tuple:
    """What names an entry at ``key`` apart from the container's others: the key, unless it is
    the ``[*]`` of the items not known one by one, or the callers may put its tensor under
    another key too (``{"a": t, "b": t}``: one object, one storage)."""
    shared = any(other is not item and other.storages & item.storages for _, other in container.items)
    return (key,) if key != "*" and not shared else ()


def _passed_items(value: Value) -> Optional[tuple]:
    """The items a call site passes in a tuple, list or dict (``*args``, a batch of tensors), or
    yielded by a loader (its batches, and theirs): kind, grad, device and dtype of each, as for
    the value itself."""
    if value.items is None or not value.kinds & {"tuple", "list", "dict", "loader", "?"}:
        return None
    return tuple((key, Value(item.kinds, grad=item.grad, graph=item.graph, device=item.device, storages=item.storages,
                             why=tuple((c, Evidence.CALLERS) for c, _ in item.why), facts=_passed_facts(item),
                             items=_passed_items(item)))
                 for key, item in value.items)


def _passed_beside_fresh(value: Value, actuals: List[Optional[Value]]) -> frozenset:
    """A function of the file a call site passes beside only new objects (``load(np.zeros(3),
    shift_)``): what it does to them there no one else sees, so it is no candidate of a join
    with the functions other call sites pass beside what their callers hold (``MAY_CALL``)."""
    if not value.qual.startswith(("local:", "class:")) or not all(
            other is None or other is value or other.fresh or not other.storages for other in actuals):
        return EMPTY
    return frozenset((BESIDE_FRESH,))


def _passed_facts(value: Value) -> frozenset:
    """What a call site's value says of itself that holds inside the callee: its dtype, its
    sizes and strides, what kind of layer it is."""
    return frozenset(fact for fact in value.facts
                     if fact.startswith(_DTYPE_FACTS) or fact in _OBJECT_FACTS or fact.startswith(layout.LAYOUT))


def _closure_stores(function: FunctionInfo, exit_state: dict) -> Dict[str, Value]:
    """The enclosing scope's names whose containers a function changed (it binds none of them
    itself): a hook filling ``acts[name]`` fills the enclosing ``acts``."""
    if function.parent is None:
        return {}
    changed = {name: value for name, value in exit_state.items() if type(value) is Value and value.items is not None
               and name.isidentifier() and name not in function.names}
    if not changed:
        return {}  # no container under a name: the body's bound names need no walk
    bound = function.bound_names | function.graph.declared_global
    return {name: value for name, value in changed.items() if name not in bound}


def _parameter_stores(function: FunctionInfo, exit_state: dict) -> Dict[int, Value]:
    """The containers callers hand the function that it filled (``store[key] = v``,
    ``kept.append(v)``): at the exit the parameter's name still holds the caller's container,
    now with items. Not the receiver: what a method keeps on ``self`` is its ``stores``."""
    found = {}
    for index, name in enumerate(function.names):
        value = exit_state.get(name)
        if index < function.receiver_offset or type(value) is not Value or not value.items:
            continue
        if ("param", index, function.name) in value.storages:
            found[index] = value
    return found


def _bound_names(node: ast.AST) -> set:
    """The names a function body binds (locals), nested definitions' bodies left out."""
    found = set()
    stack = list(getattr(node, "body", ())) if type(node) is not ast.Lambda else []
    while stack:
        current = stack.pop()
        if type(current) in (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef):
            found.add(current.name)
            continue
        if type(current) is ast.Name and type(current.ctx) is ast.Store:
            found.add(current.id)
        stack.extend(children(current))
    return found


def _loss_parameter(function: FunctionInfo, index: int) -> bool:
    """A parameter spelled as one loss (``loss``, ``val_loss``; not ``losses``) that no call
    site of the file passes a value to: a loss is computed to be backpropagated, so it may be a
    graph tensor there (weak evidence, as its name is all there is)."""
    name = function.parameters[index].arg
    passed = function.passed[index] if function.passed and index < len(function.passed) else None
    return passed is None and words(name)[-1:] == ("loss",) and loss_named(name)


def _handed(owner: ClassInfo, method: str, name: str, passed: Optional[Value]) -> Value:
    """What the method ``method`` of ``owner`` was handed as its parameter ``name``, as the
    instance keeps it (``self.net = net``): what the file's callers pass, and the object handed
    itself (a storage per class, method and parameter), so that what another method does with
    ``self.net`` and with an optimizer built from ``net.parameters()`` relate even where no
    caller is in the file."""
    value = UNKNOWN if passed is None else passed
    return value._replace(storages=value.storages | {(HANDED, owner.name, method, name)})


def _holds_torch_values(value: Optional[Value]) -> bool:
    """Whether a module variable read unbound mattered: a tensor, an array, a module, an
    optimizer or a container of one (a logger, a constant or a config read as unknown did not)."""
    if value is None:
        return False
    if value.grad or value.kinds & _TORCH_KINDS:
        return True
    return any(_holds_torch_values(item) for _, item in value.items or ())


_TORCH_KINDS = frozenset(("tensor", "ndarray", "module", "optimizer", "distribution"))


def _empty_container(value: Optional[Value]) -> bool:
    """A list or dict the module binds empty (``history = []``): what fills it is a function's."""
    return value is not None and value.items == () and bool(value.kinds) and value.kinds <= {"list", "dict"}


def _disputed(function: FunctionInfo, index: int) -> bool:
    """Whether the file's callers pass the parameter something not known to be a tensor (a
    literal, a value read out of a config): then its annotation is no evidence."""
    return index in function.disputed and index >= function.receiver_offset


def _line_of(op) -> int:
    if type(op) is not tuple:
        return op.lineno
    node = op[1]
    if type(node) is ast.withitem:
        return node.context_expr.lineno
    if type(node).__name__ == "match_case":
        return node.pattern.lineno
    return node.lineno


def _rebinding(model: "Model") -> Dict[int, set]:
    """id(scope node) -> the names functions rebind from outside it (keyed by the module's node
    for ``global`` and ``globals()["name"] = ...``, by the enclosing function's for
    ``nonlocal``), read off the flow graphs the solve uses anyway."""
    found: Dict[int, set] = {}
    pending = [(model.module.graph, None)]
    while pending:
        graph, parent = pending.pop()
        for node in graph.nested:
            if type(node) is ast.ClassDef:
                if graph is model.module.graph:
                    pending.extend((method.graph, None) for method in model.class_of(node).methods.values())
            elif graph is model.module.graph:
                pending.append((model.function_of(node, model.module).graph, None))
            elif any(type(statement) in (ast.Global, ast.Nonlocal) for statement in node.body):
                pending.append((build_graph(node), graph.node))  # solved later, with its closure
        for block in graph.blocks:
            for op in block.ops:
                for target in _targets(op):
                    if type(target) is ast.Name and target.id in graph.declared_global:
                        found.setdefault(id(model.tree), set()).add(target.id)
                    elif type(target) is ast.Name and target.id in graph.declared_nonlocal and parent is not None:
                        found.setdefault(id(parent), set()).add(target.id)
                    elif type(target) in (ast.Subscript, ast.Attribute) and _module_namespace(model, target.value):
                        name = target.attr if type(target) is ast.Attribute else _constant_name(target.slice)
                        found.setdefault(id(model.tree), set()).add(name or EVERY_NAME)
                if type(op) is ast.Expr and type(op.value) is ast.Call:
                    found.setdefault(id(model.tree), set()).update(_rebound_by_call(model, op.value))
    return found


EVERY_NAME = "*"  # ``globals().update(mapping)``: any module-level name may be rebound
_NAMESPACE_READS = frozenset({"get", "keys", "values", "items", "copy", "__getitem__", "__contains__"})


def _module_namespace(model: "Model", node) -> bool:
    """``globals()`` or ``sys.modules[__name__]``: the module's own names, written through."""
    if type(node) is ast.Call:
        return place_of(node.func) == "globals" and not node.args
    return type(node) is ast.Subscript and type(node.slice) is ast.Name and node.slice.id == "__name__" \
        and model.qualify(place_of(node.value) or "") == "sys.modules"


def _rebound_by_call(model: "Model", call: ast.Call) -> set:
    """The module names a statement call binds: ``globals().update(w=...)`` (a mapping or
    ``**``: every name), ``globals().setdefault("w", ...)``, ``setattr(sys.modules[__name__], "w", ...)``."""
    func = call.func
    if type(func) is ast.Attribute and func.attr not in _NAMESPACE_READS and _module_namespace(model, func.value):
        names = {keyword.arg or EVERY_NAME for keyword in call.keywords}
        for argument in call.args[:1]:
            if type(argument) is ast.Dict:
                names.update(_constant_name(key) or EVERY_NAME for key in argument.keys)
            else:
                names.add(_constant_name(argument) or EVERY_NAME)
        return names
    if place_of(func) == "setattr" and len(call.args) >= 2 and _module_namespace(model, call.args[0]):
        return {_constant_name(call.args[1]) or EVERY_NAME}
    return set()


def _constant_name(node) -> Optional[str]:
    return node.value if type(node) is ast.Constant and type(node.value) is str else None


def _targets(statement) -> list:
    """The places an assignment statement binds (tuple targets unpacked)."""
    kind = type(statement)
    if kind is tuple and statement[0] == "for":
        targets = [statement[1].target]
    elif kind is tuple:
        return []
    elif kind is ast.Assign:
        targets = list(statement.targets)
    elif kind in (ast.AugAssign, ast.AnnAssign):
        targets = [statement.target]
    else:
        return []
    flat = []
    while targets:
        target = targets.pop()
        if type(target) in (ast.Tuple, ast.List):
            targets.extend(target.elts)
        else:
            flat.append(target)
    return flat


def _imports(tree: ast.Module) -> Dict[str, str]:
    """Module-level import aliases: ``nn`` -> ``torch.nn``, ``F`` -> ``torch.nn.functional``."""
    found: Dict[str, str] = {}
    for statement in tree.body:
        if type(statement) is ast.Import:
            for alias in statement.names:
                found[alias.asname or alias.name.split(".")[0]] = alias.name if alias.asname else alias.name.split(".")[0]
        elif type(statement) is ast.ImportFrom and statement.module:
            for alias in statement.names:
                found[alias.asname or alias.name] = f"{statement.module}.{alias.name}"
    return found


def name_bound_to(tree: ast.Module, qual: str) -> Optional[str]:
    """The module-level name the file binds to ``qual`` (``th`` for ``import torch as th``), if
    any: how a fix spells it without adding an import."""
    return next((name for name, bound in sorted(_imports(tree).items()) if bound == qual), None)


def build_model(tree: ast.Module, default_dtype: str = DEFAULT_DTYPE, default_device: str = "") -> Model:
    """The model of a module; ``default_dtype`` is what factories make given no dtype ("" for a
    file that sets the default dtype itself: ``torch.set_default_dtype``), ``default_device``
    where they put their tensors given no device ("": not known)."""
    return Model(tree, default_dtype, default_device).build()


def _written_through(writes: frozenset) -> dict:
    """Per parameter, the aliases (``Value.made`` ids) each write of it went through, one set
    per write (``copy.copy(x)`` then ``+=`` inside the helper); none where one write went
    through no alias."""
    found = {}
    for index, made in writes:
        found[index] = found.get(index, frozenset()) | {made}
    return {index: made for index, made in found.items() if all(made)}
