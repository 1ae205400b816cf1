"""Alias analysis: which names share memory, and when sharing becomes observable.

An *alias fact* says "name A shares memory with source S, made by operation O at node N".
Facts live in the scope state of the frame (function, module, class body) that made them, so
they follow the walk: rebinding either side ends a fact, ``if``/``try`` branches merge (a fact
holds if it may hold), loop bodies are walked again while facts are live (a write in a later
iteration is seen). A fact becomes a finding when one side is written in place and the
other side is observed afterwards: read later, or outliving the function (a parameter, an
attribute, a global, a value stored away, or only a name of the function). Each fact records
the operations that made it (``Made``) and what was known of its source; the rules that
subscribe to the "sharing" event decide which observations are hazards and word them.
"""

from typing import NamedTuple, Optional, Tuple

import libcst as cst

from flake8_tensorcopy.knowledge.conventions import inplace_named, training_call
from flake8_tensorcopy.analysis.facts import (
    PARAMETER,
    AliasFact,
    BlankBuffer,
    Function,
    HeldBy,
    Holder,
    LikeBuffer,
    Made,
    Operations,
    Optimizer,
    ParameterOf,
    SharingObserved,
    Source,
    WriteContext,
    any_item,
    element_key,
    is_parameter_item,
    part_of,
    result_is_array,
)
from flake8_tensorcopy.analysis.containers import collected_aliases, items_key, made_by
from flake8_tensorcopy.analysis.scope import LIST, MODULE, NDARRAY, STATE_DICT, TENSOR, TENSOR_SEQ, Scope, dotted_name
from flake8_tensorcopy.analysis.statements import is_name, keyword_value
from flake8_tensorcopy.analysis.summaries import Summaries, positional_names
from flake8_tensorcopy.scan import NUMPY_INPLACE_FUNCTIONS, NUMPY_INPLACE_METHODS
from flake8_tensorcopy.data import (
    INPLACE_METHODS,
    METHODS_RETURNING_TENSOR_SEQUENCE,
    VIEW_ATTRIBUTES,
    VIEW_METHODS,
)

# Methods returning the very same tensor when nothing changes (device, dtype, layout).
# (Integer and bool casts are left out: they are mostly used to turn floats into indices or
# masks, which always copies.)
MOVE_METHODS = frozenset(
    {"cpu", "cuda", "to", "float", "double", "half", "bfloat16", "type", "type_as", "contiguous"}
)
# Moves that change the dtype: a copy unless the source already has it.
DTYPE_CASTS = frozenset({"float()", "double()", "half()", "bfloat16()", "type()", "type_as()"})
SINGLE_VIEW_METHODS = VIEW_METHODS - METHODS_RETURNING_TENSOR_SEQUENCE
SEQUENCE_VIEW_METHODS = VIEW_METHODS & METHODS_RETURNING_TENSOR_SEQUENCE
# The view methods that make a view of part of a tensor (the others view all of it).
PARTIAL_VIEW_METHODS = frozenset({"narrow", "select", "diagonal", "unfold", "as_strided"}) | SEQUENCE_VIEW_METHODS

# Blank buffers (constant or uninitialised content): filling one through a view is what it
# is for, so writes through its aliases are not observations of anything it held before.
BLANK_BUFFERS = frozenset(
    "torch." + name
    for name in ("zeros", "ones", "empty", "full", "zeros_like", "ones_like", "empty_like", "full_like")
) | frozenset("numpy." + name for name in ("zeros", "ones", "empty", "full", "zeros_like", "ones_like",
                                           "empty_like", "full_like"))


class Step(NamedTuple):
    """One operation returning memory of ``inner``: ``operations`` (several for a call of a
    function of the file whose summary says so), spelled ``op``."""

    operations: Operations
    op: str
    inner: cst.BaseExpression


class Alias(NamedTuple):
    """What an expression aliases: the named ``source``, by the chain ``operations``, the outermost spelled ``op``."""

    operations: Operations
    op: str
    source: str

    @property
    def made(self) -> Made:
        return self.operations[0]


def _closeness(written: str, side: str) -> int:
    """How directly writing ``written`` writes ``side``: itself 3, a part of it 2, its container 1.

    An unknown item (``batch[*]``) may be any item: it is as close to ``batch['img']`` as itself;
    two constant items (``batch['img']``, ``batch['mask']``) are different objects."""
    if written == side:
        return 3
    if part_of(written, side):
        return 2
    if part_of(side, written):
        # reading a list reads its items (``torch.stack(saved)``); reading ``self`` is not reading ``self.x``
        return 2 if side[len(written)] == "[" else 1
    if "[*]" in written or "[*]" in side:
        written_any, side_any = any_item(written), any_item(side)
        if written_any != written or side_any != side:
            return _closeness(written_any, side_any)
    return 0


def constant_index(node: cst.Subscript) -> Optional[str]:
    """The index of ``batch["img"]`` or ``outs[-1]`` as a key spells it (``'img'``, ``-1``);
    None for any other index (a name, a slice, several)."""
    if len(node.slice) != 1 or type(node.slice[0].slice) is not cst.Index:
        return None
    value = node.slice[0].slice.value
    if type(value) is cst.SimpleString:
        text = value.evaluated_value
        return f"'{text}'" if type(text) is str and not set(text) & set("'\"[].\\") else None
    sign = ""
    if type(value) is cst.UnaryOperation and type(value.operator) is cst.Minus:
        sign, value = "-", value.expression
    return sign + value.value if type(value) is cst.Integer and value.value.isdigit() else None


def _may_return_itself(method: str, call: cst.Call) -> bool:
    """Whether a move method may hand back its receiver: not ``.type()`` without arguments (a
    string), not ``.to(..., copy=True)`` (always a copy)."""
    if method == "type":
        return bool(call.args)
    if method == "to":
        copy = keyword_value(call, "copy")
        if copy is not None:
            return is_name(copy, "False")
    return True


def _is_basic_index(node: cst.Subscript, is_integer) -> bool:
    """``t[0]``, ``t[:, 1:3]``, ``t[..., None]``, ``a[idx]`` (``idx: int``): indexing that returns a view, not a copy."""
    for element in node.slice:
        part = element.slice
        if type(part) is cst.Slice:
            continue
        value = part.value
        if type(value) is not cst.Ellipsis and not (type(value) is cst.Name and value.value == "None") and not is_integer(value):
            return False
    return True


_CONTAINERS = frozenset({LIST, TENSOR_SEQ})  # kinds whose items are not views of them


class AliasTracker:
    """Makes, updates and reports alias facts for the walk in ``analysis``."""

    def __init__(self, analysis, sharing_rules):
        self.analysis = analysis
        self.sharing_rules = sharing_rules  # the rules subscribed to the "sharing" event
        self.summaries = Summaries(analysis, self)

    # ----- what an expression aliases ----------------------------------------------------
    def step(self, node: cst.BaseExpression) -> Optional[Step]:
        """The operation when ``node`` returns memory of an inner expression."""
        node_type = type(node)
        if node_type is cst.Call:
            returned = self._returned_by_call(node)
            if returned is not None:
                return returned
            func = node.func
            if type(func) is cst.Attribute:
                method = func.attr.value
                if method == "numpy" and all(arg.keyword is not None for arg in node.args):
                    return Step((Made.NUMPY_VIEW,), "numpy()", func.value)
                if method == "detach" and not node.args:
                    return Step((Made.DETACH,), "detach()", func.value)
                if method in SINGLE_VIEW_METHODS:
                    made = Made.PARTIAL_VIEW if method in PARTIAL_VIEW_METHODS else Made.VIEW
                    return Step((made,), method + "()", func.value)
                if method in MOVE_METHODS and _may_return_itself(method, node):
                    made = Made.TRANSFER if keyword_value(node, "non_blocking") is not None else Made.MOVE
                    return Step((made,), method + "()", func.value)
                if method == "astype" and is_name(keyword_value(node, "copy"), "False"):
                    return Step((Made.MOVE,), "astype(copy=False)", func.value)  # the array itself when it has the dtype
                if method == "copy" and not node.args and self.analysis.kind_of(func.value) == STATE_DICT:
                    return Step((Made.STATE_DICT,), "state_dict().copy()", func.value)
            if len(node.args) != 1 or node.args[0].keyword is not None or node.args[0].star:
                return None
            qualname = self.analysis.qualname(func)
            argument = node.args[0].value
            if qualname == "numpy.asarray":
                return Step((Made.NUMPY_VIEW,), "np.asarray()", argument)
            if qualname == "torch.from_numpy":
                return Step((Made.FROM_NUMPY,), "torch.from_numpy()", argument)
            if qualname in ("torch.as_tensor", "torch.asarray"):
                kind = self.analysis.kind_of(argument) or self.analysis.kind_of(self.root(argument))
                if kind == NDARRAY:
                    return Step((Made.FROM_NUMPY,), qualname + "()", argument)
                return Step((Made.MOVE,), qualname + "()", argument)
            if qualname == "copy.copy":
                return Step((Made.SHALLOW_COPY,), "copy.copy()", argument)
            if qualname in ("dict", "collections.OrderedDict") or (
                type(func) is cst.Name and func.value in ("dict", "OrderedDict") and self.analysis.lookup(func.value) is None
            ):
                if self.analysis.kind_of(argument) == STATE_DICT:
                    return Step((Made.STATE_DICT,), "dict(state_dict())", argument)
            return None
        if node_type is cst.Attribute:
            attr = node.attr.value
            if attr == "data":
                return Step((Made.DETACH,), ".data", node.value)
            if attr in VIEW_ATTRIBUTES:
                return Step((Made.VIEW,), "." + attr, node.value)
            return None
        if node_type is cst.Subscript and _is_basic_index(node, self._is_integer):
            return Step((Made.PARTIAL_VIEW,), "indexing", node.value)
        return None

    def _is_integer(self, node: cst.BaseExpression) -> bool:
        analysis = self.analysis
        return analysis.inference.is_integer(node, analysis.scope, analysis.function)

    def steps(self, value: cst.BaseExpression) -> Tuple[list, cst.BaseExpression]:
        """(the alias-making steps around ``value``, outermost first; the innermost expression):
        ``[detach(), view()]`` and ``w`` for ``w.view(-1).detach()``."""
        steps = []
        node = value
        while True:
            step = self.step(node)
            if step is None:
                return steps, node
            steps.append(step)
            node = step.inner

    def describe(self, value: cst.BaseExpression) -> Optional[Alias]:
        """What ``value`` aliases, when it is memory of a named tensor or array."""
        steps, node = self.steps(value)
        state_dict = self._state_dict_source(node)
        if state_dict is not None:
            return Alias((Made.STATE_DICT,), "state_dict()", state_dict)
        if not steps:
            return collected_aliases(self, value)
        key = dotted_name(node)
        if key is None:
            return None
        operations = sum((step.operations for step in steps), ())
        kind = self.analysis.kind_of(node)
        if Made.FROM_NUMPY in operations:
            made_tensor = next(index for index, step in enumerate(steps) if Made.FROM_NUMPY in step.operations)
            if kind != NDARRAY or any(step.op in DTYPE_CASTS for step in steps[:made_tensor]):
                return None  # a cast shares only an array of that dtype already, which is not known
        elif kind != TENSOR and not any(step.op == "detach()" for step in steps):
            return None  # only detach() proves a tensor by itself (``.data`` does not)
        return Alias(operations, steps[0].op, key)

    def _callee(self, call: cst.Call):
        """(function node, receiver expression or None) for a call to a function or an own
        method of this module."""
        func = call.func
        if type(func) is cst.Name:
            binding = self.analysis.lookup(func.value)
            if binding is not None and type(binding.origin) is Function:
                return binding.origin.node, None
        elif type(func) is cst.Attribute:
            analysis = self.analysis
            name = func.attr.value
            method = analysis.own_method(name) if analysis.is_receiver(func.value) else analysis.method_of(func.value, name)
            if method is not None:
                return method, func.value
        return None, None

    def _argument(self, call: cst.Call, function: cst.FunctionDef, receiver, index: int):
        """The expression a call passes for positional parameter ``index`` of ``function``."""
        if receiver is not None:
            if index == 0:
                return receiver
            index -= 1
        positional = [arg for arg in call.args if arg.keyword is None and not arg.star]
        if len(positional) != len([arg for arg in call.args if arg.keyword is None]):
            return None  # ``f(*args)``: positions unknown
        if index < len(positional):
            return positional[index].value
        name = positional_names(function)[index + (receiver is not None)]
        for arg in call.args:
            if arg.keyword is not None and arg.keyword.value == name:
                return arg.value
        return None

    def summarized_kind(self, call: cst.Call) -> Optional[str]:
        """What a call to a same-module callee returns when its summary says it returns memory
        of a known tensor or array argument (the array for a ``numpy()`` alias)."""
        returned = self._returned_by_call(call)
        if returned is None:
            return None
        if returned.operations == (Made.ASSIGNMENT,):  # handed back as is: what the argument is
            kind = self.analysis.kind_of(returned.inner)
            return kind if kind in (TENSOR, NDARRAY) else None
        alias = self.describe(call)
        if alias is None or alias.made is Made.STATE_DICT:
            return None
        return NDARRAY if result_is_array(alias.operations) else TENSOR

    def _returned_by_call(self, call: cst.Call) -> Optional[Step]:
        """The step when a same-module callee may return memory of an argument."""
        function, receiver = self._callee(call)
        if function is None:
            return None
        for returned in self.summaries.of(function).returned_aliases:
            argument = self._argument(call, function, receiver, returned.parameter)
            if argument is None:
                continue
            for attr in filter(None, returned.path.split(".")):
                argument = cst.Attribute(value=argument, attr=cst.Name(attr))
            if returned.op is None:
                return Step((Made.ASSIGNMENT,), f"{function.name.value}() returning its argument", argument)
            return Step(returned.operations, returned.op, argument)
        return None

    def _state_dict_source(self, node: cst.BaseExpression) -> Optional[str]:
        """``model`` for ``model.state_dict()`` and ``{k: v for k, v in model.state_dict().items()}``."""
        if type(node) is cst.DictComp:
            loop = node.for_in
            if (
                loop.inner_for_in is None
                and type(loop.target) is cst.Tuple
                and len(loop.target.elements) == 2
                and type(loop.iter) is cst.Call
                and type(loop.iter.func) is cst.Attribute
                and loop.iter.func.attr.value == "items"
            ):
                value_name = loop.target.elements[1].value
                inner = node.value
                while True:
                    step = self.step(inner)
                    if step is None or step.operations not in ((Made.DETACH,), (Made.MOVE,)):
                        break
                    inner = step.inner
                if type(value_name) is cst.Name and type(inner) is cst.Name and inner.value == value_name.value:
                    return self._state_dict_source(loop.iter.func.value)
            return None
        if (
            type(node) is cst.Call
            and type(node.func) is cst.Attribute
            and node.func.attr.value == "state_dict"
            and not node.args
        ):
            return dotted_name(node.func.value)
        return None

    def root(self, node: cst.BaseExpression) -> cst.BaseExpression:
        """The expression whose memory ``node`` is: ``w`` for ``w.detach().view(-1)[0]``, ``outs[0]``
        for ``outs[0].view(-1)`` of a list (an item is not a view of its container)."""
        while True:
            if type(node) is cst.Call and type(node.func) is cst.Attribute and node.func.attr.value in INPLACE_METHODS:
                node = node.func.value  # ``t.sub_(m).div_(s)``: in-place methods return their receiver
                continue
            if type(node) is cst.Subscript and self.analysis.kind_of(node.value) in _CONTAINERS:
                return node
            step = self.step(node)
            if step is None:
                return node
            node = step.inner

    def root_key(self, node: cst.BaseExpression) -> Optional[str]:
        return self.key_of(self.root(node))

    def key_of(self, node: cst.BaseExpression) -> Optional[str]:
        """The key of what ``node`` names (see ``fact_key``), an item of a container included (not
        of a state_dict: its values are the model's parameters, written as such)."""
        if type(node) is cst.Subscript:
            return self.item_key(node) if self.analysis.kind_of(node.value) != STATE_DICT else None
        key = dotted_name(node)
        return self.fact_key(key) if key is not None else None

    def item_key(self, node: cst.Subscript) -> Optional[str]:
        """``batch['img']``, ``outs[0]`` or ``backup[*]`` for an item of a named container (not of
        a tensor or an array: indexing those makes a view)."""
        container = dotted_name(node.value)
        if container is None or self.analysis.kind_of(node.value) in (TENSOR, NDARRAY):
            return None
        return element_key(container, constant_index(node))

    def fact_key(self, key: str) -> str:
        """The key facts use for a dotted path: itself, or for a loop variable over a model's
        parameters the item key ``model.parameters()[*]`` (the next loop's ``p`` is the same memory)."""
        if "." not in key:
            binding = self.analysis.lookup(key)
            if binding is not None and type(binding.origin) in (ParameterOf, HeldBy) and binding.origin.key:
                return binding.origin.key
        return items_key(self.analysis, key) or key

    # ----- events from the walk ----------------------------------------------------------
    def made(self, alias_key: str, value: cst.BaseExpression, stored: bool = False) -> None:
        """``alias_key = value`` was just bound (the old facts of alias_key are gone), or with
        ``stored``, ``value`` was put in the container item ``alias_key`` (a reference to a
        tensor put in a dict is how containers work: only an alias made on the way counts)."""
        frame = self.analysis.scope.frame
        alias = self.describe(value)
        if alias is None:
            if stored or type(value) not in (cst.Name, cst.Attribute) or self.analysis.kind_of(value) != TENSOR:
                return
            source_key = self.key_of(value)
            if source_key is None:
                return
            alias = Alias((Made.ASSIGNMENT,), "assignment", source_key)
        source_key = self.fact_key(alias.source)
        if alias_key == source_key or part_of(source_key, alias_key):
            return
        if part_of(alias_key, source_key) and alias.made is not Made.STATE_DICT:
            return  # ``x.data = x.data.to(...)``: x's own storage is replaced, nothing is kept
        fact = AliasFact(alias.operations, alias_key, source_key, alias.op,
                         made_by(value, alias.made is Made.STATE_DICT), self._source(source_key),
                         source_name=alias.source)
        frame.aliases[alias_key] = frame.aliases.get(alias_key, ()) + (fact,)

    def made_sequence(self, targets, value: cst.BaseExpression) -> None:
        """``a, b = t.chunk(2)``: every item is a view of ``t``."""
        if (
            type(value) is not cst.Call
            or type(value.func) is not cst.Attribute
            or value.func.attr.value not in SEQUENCE_VIEW_METHODS
        ):
            return
        source = value.func.value
        source_key = self.key_of(source)
        if source_key is None or self.analysis.kind_of(source) != TENSOR:
            return
        frame = self.analysis.scope.frame
        for element in targets.elements:
            key = dotted_name(element.value)
            if key is not None and not _closeness(key, source_key):
                fact = AliasFact((Made.PARTIAL_VIEW,), key, source_key, value.func.attr.value + "()", value,
                                 self._source(source_key))
                frame.aliases[key] = frame.aliases.get(key, ()) + (fact,)

    def _source(self, source_key: str) -> Source:
        """What the function knows of the source of an alias it makes: a local of its own, a
        blank allocation (also one it just put on an attribute: ``self.buf = torch.empty(n)``)."""
        frame = self.analysis.scope.frame
        if "." in source_key:
            return Source(blank=source_key in frame.blank_attributes)
        binding = frame.names.get(source_key)
        if binding is None or binding.origin == PARAMETER:
            return Source()
        return Source(local=True, blank=type(binding.origin) in (BlankBuffer, LikeBuffer))

    def holder_of(self, key: str) -> Optional[Holder]:
        return self._outlives(key, self.analysis.scope.frame)

    def returned_memory(self, call: cst.Call) -> Optional[HeldBy]:
        """What a same-module callee hands back as is, when no alias fact follows it (an array:
        ``obs = env.reset()`` returning ``self._obs``) and something outliving the call holds it."""
        returned = self._returned_by_call(call)
        if returned is None or returned.operations != (Made.ASSIGNMENT,) or self.analysis.kind_of(returned.inner) != NDARRAY:
            return None
        key = self.key_of(returned.inner)
        holder = self.holder_of(key) if key is not None else None
        return HeldBy(holder, key) if holder is not None else None

    def _outlives(self, key: str, frame: Scope) -> Optional[Holder]:
        """Who still holds the object ``key`` names when the function returns, if anyone."""
        root = key.split(".", 1)[0]
        binding = frame.names.get(root)
        if binding is not None and type(binding.origin) is HeldBy:
            return binding.origin.holder
        if binding is not None and binding.origin == PARAMETER:
            if root == key:
                return Holder.PARAMETER
            return Holder.RECEIVER_ATTRIBUTE if root == frame.receiver else Holder.PARAMETER_ATTRIBUTE
        if binding is None and frame.parent is not None and self.analysis.lookup(root) is not None:
            return Holder.GLOBAL
        return None

    def written(self, key: str, node: cst.CSTNode, training: bool = False) -> None:
        """``key`` was written in place at ``node`` (``training``: only a model trained).

        Writing an alias of the whole source writes the source: its other aliases see the write
        as a write of their source (``flat = x.view(-1); y = x.t(); flat[0] = 1``). A part of
        it (a slice, a chunk) may not overlap another part, so its writes stay its own.
        """
        frame = self.analysis.scope.frame
        if not training and key not in frame.aliases:
            self.written_directly(key)
        shared = set() if training else {
            fact.source_key for fact in frame.aliases.get(key, ()) if fact.made is not Made.PARTIAL_VIEW
        }
        for alias_key, facts in list(frame.aliases.items()):
            updated = []
            for fact in facts:
                if training and fact.made is not Made.STATE_DICT:
                    updated.append(fact)
                    continue
                to_alias = _closeness(key, alias_key)
                to_source = _closeness(key, fact.source_key)
                if not to_alias and not to_source and alias_key != key and fact.source_key in shared:
                    to_source = 3
                if to_alias > to_source and not training:
                    fact = fact.with_write("alias", node)
                    holder = self._outlives(fact.source_key, frame)
                    if holder is not None:
                        self._observed(SharingObserved(fact, node, fact.source_key, holder=holder,
                                                       context=self._context(fact, node)))
                elif to_source > to_alias:
                    fact = fact.with_write("source", node)
                    holder = self._alias_outlives(fact, frame)
                    if holder is not None:
                        self._observed(SharingObserved(fact, node, fact.alias_key, holder=holder,
                                                       context=self._context(fact, node)))
                updated.append(fact)
            frame.aliases[alias_key] = tuple(updated)

    def read(self, key: str, node: cst.CSTNode) -> None:
        """``key`` was read at ``node``: an observation of every fact whose other side was written."""
        frame = self.analysis.scope.frame
        for alias_key, facts in frame.aliases.items():
            for fact in facts:
                if not fact.writes:
                    continue
                # Reading a side or a part of it observes it; reading its container does not.
                to_alias = _closeness(key, alias_key)
                to_source = _closeness(key, fact.source_key)
                if to_alias >= 2 and to_alias > to_source:
                    write = fact.first_write("source")
                    observed = alias_key
                elif to_source >= 2 and to_source > to_alias:
                    write = fact.first_write("alias")
                    observed = fact.source_key
                else:
                    continue
                if write is not None:
                    self._observed(SharingObserved(fact, write, observed, read=node, context=self._context(fact, write)))

    def escaped(self, key: str) -> None:
        """``key`` was stored where it outlives the function (an attribute, a container)."""
        frame = self.analysis.scope.frame
        facts = frame.aliases.get(key)
        if facts:
            frame.aliases[key] = tuple(fact.with_escape() for fact in facts)

    def _alias_outlives(self, fact: AliasFact, frame: Scope) -> Optional[Holder]:
        if "." in fact.alias_key:
            return self._outlives(fact.alias_key, frame)
        return Holder.STORED if fact.escaped else Holder.LOCAL

    def _context(self, fact: AliasFact, write: cst.CSTNode, other_call: bool = False,
                 container_written: bool = False) -> WriteContext:
        """What the function says about a write of ``fact``'s sides (the rules weigh it)."""
        analysis = self.analysis
        frame = analysis.scope.frame
        source = fact.source_key
        parameter = self._is_parameter(source, frame)
        return WriteContext(
            returned=analysis.returning,
            source_written_directly=parameter and any(
                written == source or part_of(written, source) for written in frame.written_directly),
            source_returned=parameter and source.split(".", 1)[0] in analysis.returned_names(),
            on_purpose=frame.writes_params_on_purpose,
            undone=analysis.undone(write),
            other_call=other_call,
            container_written=container_written,
        )

    def written_directly(self, key: str) -> None:
        """``key`` itself (not an alias of it) was written in place in the current frame."""
        self.analysis.scope.frame.written_directly.add(key)

    def _is_parameter(self, key: str, frame: Scope) -> bool:
        binding = frame.names.get(key.split(".", 1)[0])
        return binding is not None and binding.origin == PARAMETER

    def _observed(self, event: SharingObserved) -> None:
        for rule in self.sharing_rules:
            rule.check_sharing(event, self.analysis)

    # ----- writes ------------------------------------------------------------------------
    def call_writes(self, call: cst.Call):
        """Yield (key, training) for every object ``call`` writes in place."""
        analysis = self.analysis
        func = call.func
        qualname = analysis.qualname(func)
        if type(func) is cst.Attribute and qualname is None:
            method = func.attr.value
            receiver = func.value
            if method in INPLACE_METHODS or (
                method in NUMPY_INPLACE_METHODS and analysis.kind_of(receiver) == NDARRAY
            ):
                key = self.root_key(receiver)
                if key is not None:
                    yield key, False
                return
            if method == "step":
                owner = self._optimizer_owner(receiver)
                if owner is not None:
                    yield owner, False
                    return  # else a method of this module may be called ``step`` (``env.step()``)
            if method == "load_state_dict":
                key = dotted_name(receiver)
                loaded = dotted_name(call.args[0].value) if call.args else None
                if key is not None and not self._snapshot_of(loaded, key):
                    yield key, False  # loading the model's own state_dict back writes nothing new
                return
        arguments = [arg for arg in call.args if arg.keyword is None and not arg.star]
        if qualname is not None:
            last = qualname.rsplit(".", 1)[-1]
            writes_first = (
                qualname in NUMPY_INPLACE_FUNCTIONS
                or (qualname.startswith("torch.nn.init.") and last.endswith("_"))
                or (qualname.startswith("torch.") and last.endswith("_") and not last.endswith("__"))
                or (qualname.startswith("torch.") and any(
                    arg.keyword is not None and arg.keyword.value == "inplace"
                    and type(arg.value) is cst.Name and arg.value.value == "True" for arg in call.args))
            )
            if writes_first and arguments:
                key = self.root_key(arguments[0].value)
                if key is not None:
                    yield key, False
            if qualname.startswith(("torch.", "numpy.")):
                for arg in call.args:
                    if arg.keyword is not None and arg.keyword.value == "out":
                        key = self.root_key(arg.value)
                        if key is not None:
                            yield key, False
            return
        name = func.value if type(func) is cst.Name else func.attr.value if type(func) is cst.Attribute else ""
        function, receiver = self._callee(call)
        if function is not None:
            summary = self.summaries.of(function)
            for index, path in [(index, "") for index in summary.written_parameters] + list(summary.written_attributes):
                argument = self._argument(call, function, receiver, index)
                if not path and argument is not None and self._written_through(call, function, argument):
                    continue
                key = self.root_key(argument) if argument is not None else None
                if key is not None:
                    yield key + ("." + path if path else ""), False
        if training_call(name) and not self._mode_switch(call):
            candidates = [arg.value for arg in call.args]
            if type(func) is cst.Attribute:
                candidates.append(func.value)
            for candidate in candidates:
                key = dotted_name(candidate)
                if key is not None:
                    yield key, True

    def _mode_switch(self, call: cst.Call) -> bool:
        """``model.train()`` / ``model.train(False)`` of an ``nn.Module``: it sets the training mode
        and writes no parameter (the optimizer's ``step()`` does), whatever the convention says."""
        func = call.func
        return (type(func) is cst.Attribute and func.attr.value == "train" and len(call.args) <= 1
                and self.analysis.kind_of(func.value) == MODULE)

    def _written_through(self, call: cst.Call, function: cst.FunctionDef, argument: cst.BaseExpression) -> bool:
        """A call taken for its result (``zs = normalize(raw.numpy())``) of a function of this
        module that writes its parameter in place, handed an alias made on the spot: the write
        through that alias is reported when the memory it aliases outlives the function (itself,
        or the source of the name it aliases: ``raw = cache.get(...)``). True when reported.
        (A call made for its effect, or a function named as writing its arguments, means it.)"""
        statement = self.analysis.statement
        if (type(statement) is cst.Expr and statement.value is call) or inplace_named(function.name.value):
            return False
        alias = self.describe(argument)
        if alias is None:
            return False
        source_key = self.fact_key(alias.source)
        frame = self.analysis.scope.frame
        observed, holder = source_key, self._outlives(source_key, frame)
        for fact in frame.aliases.get(source_key, ()):
            if holder is None:
                observed, holder = fact.source_key, self._outlives(fact.source_key, frame)
        if holder is None:
            return False
        fact = AliasFact(alias.operations, self.analysis.source_of(argument), source_key, alias.op, argument,
                         source_name=alias.source)
        self._observed(SharingObserved(fact, call, observed, holder=holder, context=self._context(fact, call)))
        return True

    def stored_on_self(self, key: str, value: cst.BaseExpression, class_facts) -> None:
        """``value``, stored on the receiver under ``key``, outlives the call: an observation when
        its source is written in place by another call: a tensor attribute that a method of the
        class writes, or a model parameter (a loop over ``.parameters()``) while this module runs
        a training step."""
        alias = self.describe(value)
        if alias is None:
            return
        source_key = self.fact_key(alias.source)
        receiver, _dot, attr = source_key.partition(".")
        holder, _dot, path = key.partition(".")
        if is_parameter_item(source_key):
            write = self.analysis.training_step()
        elif receiver == holder and attr:
            write = class_facts.written_attributes.get(attr)
        else:
            return
        if write is not None:
            fact = AliasFact(alias.operations, key, source_key, alias.op, made_by(value, alias.made is Made.STATE_DICT),
                             source_name=alias.source)
            context = self._context(fact, write, other_call=True,
                                    container_written=path.split("[", 1)[0] in class_facts.written_items)
            self._observed(SharingObserved(fact, write, key, holder=Holder.STORED, context=context))

    def _optimizer_owner(self, receiver: cst.BaseExpression) -> Optional[str]:
        """The key of the model whose parameters the optimizer ``receiver`` was built from:
        a local optimizer, or one stored on ``self`` from ``self.model.parameters()``."""
        analysis = self.analysis
        if type(receiver) is cst.Name:
            binding = analysis.lookup(receiver.value)
            if binding is not None and type(binding.origin) is Optimizer:
                return binding.origin.owner
        elif type(receiver) is cst.Attribute and analysis.is_receiver(receiver.value):
            attribute = (analysis.lookup(receiver.value.value).attrs or {}).get(receiver.attr.value)
            if attribute is not None and type(attribute.origin) is Optimizer:
                return receiver.value.value + attribute.origin.owner
        return None

    def loaded_back(self, call: cst.Call) -> None:
        """``self.model.load_state_dict(self.best)`` where a method stored ``self.best =
        self.model.state_dict()``: the snapshot kept across calls is the live state."""
        analysis = self.analysis
        loaded = call.args[0].value if call.args else None
        model_key = dotted_name(call.func.value)
        if type(loaded) is not cst.Attribute or model_key is None or not analysis.is_receiver(loaded.value):
            return
        snapshot = analysis.state_snapshot(loaded.attr.value)
        receiver = loaded.value.value
        if snapshot is None or receiver + snapshot.model_path != model_key:
            return
        fact = AliasFact((Made.STATE_DICT,), dotted_name(loaded), model_key, snapshot.op, snapshot.value)
        self._observed(SharingObserved(fact, call, fact.alias_key, read=call, holder=Holder.LOADED_BACK,
                                       context=self._context(fact, call)))

    def _snapshot_of(self, key: Optional[str], source_key: str) -> bool:
        """Whether ``key`` names a state_dict alias of ``source_key``."""
        if key is None:
            return False
        return any(fact.source_key == source_key for fact in self.analysis.scope.frame.aliases.get(key, ()))
