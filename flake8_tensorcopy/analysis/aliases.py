"""Alias analysis: which names share memory, and when sharing becomes observable.

An *alias fact* says "name A shares memory with source S, made by operation O at node N".
Facts live in the scope state of the frame (function, module, class body) that made them, so
they follow the walk: rebinding either side ends a fact, ``if``/``try`` branches merge (a fact
holds if it may hold), loop bodies are walked again while facts are live (a write in a later
iteration is seen). A fact becomes a finding when one side is written in place and the
other side is observed afterwards: read later, or outliving the function (a parameter, an
attribute, a global, a value stored away, a name spelled like a snapshot). The TEN2xx rules
only word the finding; the facts are here.
"""

from typing import Optional, Tuple

import libcst as cst

from flake8_tensorcopy.analysis.conventions import inplace_named, snapshot_named, training_call
from flake8_tensorcopy.analysis.facts import (
    PARAMETER,
    AliasFact,
    BlankBuffer,
    Function,
    HeldBy,
    Holder,
    LikeBuffer,
    Optimizer,
    PARAMETERS,
    ParameterOf,
    SharingObserved,
    WriteContext,
    element_key,
    part_of,
)
from flake8_tensorcopy.analysis.scope import NDARRAY, STATE_DICT, TENSOR, Scope, dotted_name
from flake8_tensorcopy.analysis.containers import collected_aliases, items_key, made_by
from flake8_tensorcopy.analysis.summaries import Summaries, positional_names
from flake8_tensorcopy.scan import NUMPY_INPLACE_FUNCTIONS, NUMPY_INPLACE_METHODS
from flake8_tensorcopy.data import (
    INPLACE_METHODS,
    METHODS_RETURNING_TENSOR_SEQUENCE,
    VIEW_ATTRIBUTES,
    VIEW_METHODS,
)

NUMPY_VIEW = "TEN201"
FROM_NUMPY = "TEN202"
DETACH = "TEN203"
VIEW = "TEN204"
MOVE = "TEN205"
ASSIGNMENT = "TEN206"
SHALLOW_COPY = "TEN207"
STATE_DICT_SNAPSHOT = "TEN208"

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
# The operations that make a view of part of a tensor (the others view all of it).
PARTIAL_VIEW_OPS = frozenset({"indexing", "narrow()", "select()", "diagonal()", "unfold()", "as_strided()"}) | frozenset(
    method + "()" for method in SEQUENCE_VIEW_METHODS
)

# Blank buffers (constant or uninitialised content): filling one through a view is what it
# is for, so writes through its aliases are not observations of anything it held before.
BLANK_BUFFERS = frozenset(
    "torch." + name
    for name in ("zeros", "ones", "empty", "full", "zeros_like", "ones_like", "empty_like", "full_like")
) | frozenset("numpy." + name for name in ("zeros", "ones", "empty", "full", "zeros_like", "ones_like",
                                           "empty_like", "full_like"))

def _closeness(written: str, side: str) -> int:
    """How directly writing ``written`` writes ``side``: itself 3, a part of it 2, its container 1."""
    if written == side:
        return 3
    if part_of(written, side):
        return 2
    if part_of(side, written):
        # reading a list reads its items (``torch.stack(saved)``); reading ``self`` is not reading ``self.x``
        return 2 if side[len(written)] == "[" else 1
    return 0


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


def _keyword_false(call: cst.Call, name: str) -> bool:
    """Whether ``call`` passes ``name=False``."""
    return any(arg.keyword is not None and arg.keyword.value == name and type(arg.value) is cst.Name
               and arg.value.value == "False" for arg in call.args)


class AliasTracker:
    """Makes, updates and reports alias facts for the walk in ``analysis``."""

    def related_by_alias(self, first: cst.BaseExpression, second: cst.BaseExpression) -> Optional[str]:
        """The operation by which one expression aliases the other, if the facts say so.

        Either one is an alias-making expression of the other (``x.detach()`` and ``x``), or
        both are names bound by a live alias fact.
        """
        for made, other in ((first, second), (second, first)):
            description = self.describe(made)
            if description is not None and description[2] == dotted_name(other):
                return description[1]
        first_key, second_key = dotted_name(first), dotted_name(second)
        if first_key is None or second_key is None:
            return None
        frame = self.analysis.scope.frame
        for alias_key, source_key in ((first_key, second_key), (second_key, first_key)):
            for fact in frame.aliases.get(alias_key, ()):
                if fact.source_key == source_key and fact.code != ASSIGNMENT:  # ``a = b; a is b`` is True
                    return fact.op
        return None

    def __init__(self, analysis, rules_by_code):
        self.analysis = analysis
        self.rules_by_code = rules_by_code
        self.summaries = Summaries(analysis, self)

    # ----- what an expression aliases ----------------------------------------------------
    def step(self, node: cst.BaseExpression) -> Optional[Tuple[str, str, cst.BaseExpression]]:
        """(code, operation, inner expression) when ``node`` returns memory of ``inner``."""
        node_type = type(node)
        if node_type is cst.Call:
            returned = self._returned_by_call(node)
            if returned is not None:
                return returned
            func = node.func
            if type(func) is cst.Attribute:
                method = func.attr.value
                if method == "numpy" and all(arg.keyword is not None for arg in node.args):
                    return NUMPY_VIEW, "numpy()", func.value
                if method == "detach" and not node.args:
                    return DETACH, "detach()", func.value
                if method in SINGLE_VIEW_METHODS:
                    return VIEW, method + "()", func.value
                if method in MOVE_METHODS and self._may_be_no_op(method, node):
                    return MOVE, method + "()", func.value
                if method == "astype" and _keyword_false(node, "copy"):
                    return MOVE, "astype(copy=False)", func.value  # the array itself when it has the dtype
                if method == "copy" and not node.args and self.analysis.kind_of(func.value) == STATE_DICT:
                    return STATE_DICT_SNAPSHOT, "state_dict().copy()", func.value
            if len(node.args) != 1 or node.args[0].keyword is not None or node.args[0].star:
                return None
            qualname = self.analysis.qualname(func)
            argument = node.args[0].value
            if qualname == "numpy.asarray":
                return NUMPY_VIEW, "np.asarray()", argument
            if qualname == "torch.from_numpy":
                return FROM_NUMPY, "torch.from_numpy()", argument
            if qualname in ("torch.as_tensor", "torch.asarray"):
                kind = self.analysis.kind_of(argument) or self.analysis.kind_of(self.root(argument))
                if kind == NDARRAY:
                    return FROM_NUMPY, qualname + "()", argument
                return MOVE, qualname + "()", argument
            if qualname == "copy.copy":
                return SHALLOW_COPY, "copy.copy()", argument
            if qualname in ("dict", "collections.OrderedDict") or (
                type(func) is cst.Name and func.value in ("dict", "OrderedDict") and self.analysis.lookup(func.value) is None
            ):
                if self.analysis.kind_of(argument) == STATE_DICT:
                    return STATE_DICT_SNAPSHOT, "dict(state_dict())", argument
            return None
        if node_type is cst.Attribute:
            attr = node.attr.value
            if attr == "data":
                return DETACH, ".data", node.value
            if attr in VIEW_ATTRIBUTES:
                return VIEW, "." + attr, node.value
            return None
        if node_type is cst.Subscript and _is_basic_index(node, self._is_integer):
            return VIEW, "indexing", node.value
        return None

    def _is_integer(self, node: cst.BaseExpression) -> bool:
        analysis = self.analysis
        return analysis.inference.is_integer(node, analysis.scope, analysis.function)

    def _may_be_no_op(self, method: str, call: cst.Call) -> bool:
        if any(arg.keyword is not None and arg.keyword.value == "non_blocking" for arg in call.args):
            return False  # a transfer between host and device (TEN401/TEN402 watch its timing)
        if method == "type":
            return bool(call.args)
        if method == "to":
            for arg in call.args:
                if arg.keyword is not None and arg.keyword.value == "copy":
                    return type(arg.value) is cst.Name and arg.value.value == "False"
        return True

    def describe(self, value: cst.BaseExpression):
        """(code, operation, source key) when ``value`` aliases a named tensor or array."""
        steps = []
        node = value
        while True:
            step = self.step(node)
            if step is None:
                break
            steps.append(step)
            node = step[2]
        state_dict = self._state_dict_source(node)
        if state_dict is not None:
            return STATE_DICT_SNAPSHOT, "state_dict()", state_dict
        if not steps:
            return collected_aliases(self, value)
        key = dotted_name(node)
        if key is None:
            return None
        codes = [step[0] for step in steps]
        kind = self.analysis.kind_of(node)
        if FROM_NUMPY in codes:
            if kind != NDARRAY or any(step[1] in DTYPE_CASTS for step in steps[:codes.index(FROM_NUMPY)]):
                return None  # a cast shares only an array of that dtype already, which is not known
        elif kind != TENSOR and not any(step[1] == "detach()" for step in steps):
            return None  # only detach() proves a tensor by itself (``.data`` does not)
        return self.code_of(codes), steps[0][1], key

    @staticmethod
    def code_of(codes) -> str:
        """The code of an alias made by a chain of operations (outermost first)."""
        if FROM_NUMPY in codes:
            return FROM_NUMPY
        return NUMPY_VIEW if NUMPY_VIEW in codes else codes[0]

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
        if returned[0] == ASSIGNMENT:  # handed back as is: what the argument is
            kind = self.analysis.kind_of(returned[2])
            return kind if kind in (TENSOR, NDARRAY) else None
        description = self.describe(call)
        if description is None or description[0] == STATE_DICT_SNAPSHOT:
            return None
        return NDARRAY if description[0] == NUMPY_VIEW else TENSOR

    def _returned_by_call(self, call: cst.Call):
        """(code, operation, argument) when a same-module callee may return memory of an argument."""
        function, receiver = self._callee(call)
        if function is None:
            return None
        for returned in self.summaries.of(function).returned_aliases:
            argument = self._argument(call, function, receiver, returned.parameter)
            if argument is None:
                continue
            for attr in filter(None, returned.path.split(".")):
                argument = cst.Attribute(value=argument, attr=cst.Name(attr))
            if returned.code is None:
                return ASSIGNMENT, f"{function.name.value}() returning its argument", argument
            return returned.code, returned.op, argument
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
                    if step is None or step[0] not in (DETACH, MOVE):
                        break
                    inner = step[2]
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
        """The expression whose memory ``node`` is: ``w`` for ``w.detach().view(-1)[0]``."""
        while True:
            if type(node) is cst.Call and type(node.func) is cst.Attribute and node.func.attr.value in INPLACE_METHODS:
                node = node.func.value  # ``t.sub_(m).div_(s)``: in-place methods return their receiver
                continue
            step = self.step(node)
            if step is None:
                return node
            node = step[2]

    def root_key(self, node: cst.BaseExpression) -> Optional[str]:
        return self.key_of(self.root(node))

    def key_of(self, node: cst.BaseExpression) -> Optional[str]:
        """The key of what ``node`` names (see ``fact_key``)."""
        key = dotted_name(node)
        return self.fact_key(key) if key is not None else None

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
        description = self.describe(value)
        if description is None:
            if stored or type(value) not in (cst.Name, cst.Attribute) or self.analysis.kind_of(value) != TENSOR:
                return
            source_key = self.key_of(value)
            if source_key is None:
                return
            description = (ASSIGNMENT, "assignment", source_key)
        code, op, source_name = description
        source_key = self.fact_key(source_name)
        if alias_key == source_key or part_of(source_key, alias_key):
            return
        if part_of(alias_key, source_key) and code != STATE_DICT_SNAPSHOT:
            return  # ``x.data = x.data.to(...)``: x's own storage is replaced, nothing is kept
        fact = AliasFact(code, alias_key, source_key, op, made_by(value, code == STATE_DICT_SNAPSHOT), self._fills(code, source_key),
                         source_name=source_name)
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
                fact = AliasFact(VIEW, key, source_key, value.func.attr.value + "()", value,
                                 self._fills(VIEW, source_key))
                frame.aliases[key] = frame.aliases.get(key, ()) + (fact,)

    def _fills(self, code: str, source_key: str) -> bool:
        """Whether writing through an alias of ``source_key`` fills a buffer of our own.

        Blank allocations (``torch.zeros``) are made to be filled, also one this function just
        put on an attribute (``self.buf = torch.empty(n); self.buf.numpy()[:] = ...``); a view of
        any local is the ordinary way to fill part of it (``out = buf.narrow(...); out -= ...``).
        """
        if "." in source_key:
            return source_key in self.analysis.scope.frame.blank_attributes
        binding = self.analysis.scope.frame.names.get(source_key)
        if binding is None or binding.origin == PARAMETER:
            return False
        return code == VIEW or type(binding.origin) in (BlankBuffer, LikeBuffer)

    def holder_of(self, key: str) -> Optional[Holder]:
        return self._outlives(key, self.analysis.scope.frame)

    def returned_memory(self, call: cst.Call) -> Optional[HeldBy]:
        """What a same-module callee hands back as is, when no alias fact follows it (an array:
        ``obs = env.reset()`` returning ``self._obs``) and something outliving the call holds it."""
        returned = self._returned_by_call(call)
        if returned is None or returned[0] != ASSIGNMENT or self.analysis.kind_of(returned[2]) != NDARRAY:
            return None
        key = self.key_of(returned[2])
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
            fact.source_key for fact in frame.aliases.get(key, ()) if fact.op not in PARTIAL_VIEW_OPS
        }
        for alias_key, facts in list(frame.aliases.items()):
            updated = []
            for fact in facts:
                if training and fact.code != STATE_DICT_SNAPSHOT:
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
        if fact.escaped and fact.code != VIEW:  # a stored view is a window onto its base
            return Holder.STORED
        if snapshot_named(fact.alias_key) and not frame.writes_params_on_purpose:
            return Holder.SNAPSHOT_NAME
        return None

    def _context(self, fact: AliasFact, write: cst.CSTNode) -> WriteContext:
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
        )

    def written_directly(self, key: str) -> None:
        """``key`` itself (not an alias of it) was written in place in the current frame."""
        self.analysis.scope.frame.written_directly.add(key)

    def _is_parameter(self, key: str, frame: Scope) -> bool:
        binding = frame.names.get(key.split(".", 1)[0])
        return binding is not None and binding.origin == PARAMETER

    def _observed(self, event: SharingObserved) -> None:
        rule = self.rules_by_code.get(event.fact.code)
        if rule is not None:  # not selected: the fact still serves others (TEN304)
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
        if training_call(name):
            candidates = [arg.value for arg in call.args]
            if type(func) is cst.Attribute:
                candidates.append(func.value)
            for candidate in candidates:
                key = dotted_name(candidate)
                if key is not None:
                    yield key, True

    def _written_through(self, call: cst.Call, function: cst.FunctionDef, argument: cst.BaseExpression) -> bool:
        """A call taken for its result (``zs = normalize(raw.numpy())``) of a function of this
        module that writes its parameter in place, handed an alias made on the spot: the write
        through that alias is reported when the memory it aliases outlives the function (itself,
        or the source of the name it aliases: ``raw = cache.get(...)``). True when reported.
        (A call made for its effect, or a function named as writing its arguments, means it.)"""
        statement = self.analysis.statement
        if (type(statement) is cst.Expr and statement.value is call) or inplace_named(function.name.value):
            return False
        description = self.describe(argument)
        if description is None:
            return False
        code, op, source_name = description
        source_key = self.fact_key(source_name)
        frame = self.analysis.scope.frame
        observed, holder = source_key, self._outlives(source_key, frame)
        for fact in frame.aliases.get(source_key, ()):
            if holder is None:
                observed, holder = fact.source_key, self._outlives(fact.source_key, frame)
        if holder is None:
            return False
        fact = AliasFact(code, self.analysis.source_of(argument), source_key, op, argument, False, source_name=source_name)
        self._observed(SharingObserved(fact, call, observed, holder=holder, context=self._context(fact, call)))
        return True

    def stored_on_self(self, key: str, value: cst.BaseExpression, class_facts) -> None:
        """``value``, stored on the receiver under ``key``, outlives the call; it is reported
        when its source is written in place by another call: a tensor attribute that a method
        of the class writes, or a model parameter (a loop over ``.parameters()``) while this
        module runs a training step. (A stored view is a window onto its base; state dicts
        have their own evidence; a container whose items the class writes holds references.)"""
        description = self.describe(value)
        if description is None or description[0] in (VIEW, STATE_DICT_SNAPSHOT, ASSIGNMENT):
            return
        code, op, source_name = description
        source_key = self.fact_key(source_name)
        receiver, _dot, attr = source_key.partition(".")
        holder, _dot, path = key.partition(".")
        if source_key.endswith(element_key(PARAMETERS)):
            if path.split("[", 1)[0] in class_facts.written_items:
                return
            write = self.analysis.training_step()
        elif receiver == holder and attr:
            write = class_facts.written_attributes.get(attr)
        else:
            return
        if write is not None:
            fact = AliasFact(code, key, source_key, op, made_by(value, code == STATE_DICT_SNAPSHOT), False, source_name=source_name)
            self._observed(SharingObserved(fact, write, key, holder=Holder.STORED, context=self._context(fact, write)))

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
        if snapshot is None or receiver + snapshot[1] != model_key:
            return
        value, _path, op = snapshot
        fact = AliasFact(STATE_DICT_SNAPSHOT, dotted_name(loaded), model_key, op, value, False)
        self._observed(SharingObserved(fact, call, fact.alias_key, read=call, holder=Holder.LOADED_BACK,
                                       context=self._context(fact, call)))

    def _snapshot_of(self, key: Optional[str], source_key: str) -> bool:
        """Whether ``key`` names a state_dict alias of ``source_key``."""
        if key is None:
            return False
        return any(fact.source_key == source_key for fact in self.analysis.scope.frame.aliases.get(key, ()))

    def param_writes(self, function_name: str):
        """Indexes of the parameters a function of this module writes in place."""
        binding = self.analysis.lookup(function_name)
        if binding is None or type(binding.origin) is not Function:
            return ()
        return self.summaries.of(binding.origin.node).written_parameters
