"""The one transfer function: what an operation of the flow graph does to a state.

``Transfer.execute(op, state)`` runs one operation (a simple statement or a compound statement's
part, see ``flow``) on a state in place; ``evaluate(expr, state)`` is the value of an expression.
Everything it knows about an API comes from ``knowledge`` (the generated torch tables and the
hand-kept table); a call of a function or method of the file applies its summary. With
``recording`` on (the pass over the final states) it also records events.
"""

import ast
import builtins
from contextlib import contextmanager
from functools import partial
from keyword import iskeyword
from typing import List, Optional, Tuple

from flake8_tensorcopy import knowledge as k
from flake8_tensorcopy.knowledge.conventions import parameter_free_layer, training_call
from flake8_tensorcopy.model import layout
from flake8_tensorcopy.model.places import inside, key_of, place_of, split_items
from flake8_tensorcopy.model.summaries import (
    CAST_TO, PICKED_BY, SHALLOW_OF_PASSED, SURELY_CAST, Instantiation, allocated_in, is_torch_layer, parameter_holding, parameter_index, plain, surely_dtype,
)
from flake8_tensorcopy.model.values import (
    ASSUMED, BOUND_AT, DEAD, DROPPED, EMPTY, ENTRY, FIELDS, FORWARDED, GUARDED, HOOKED, IN_FLIGHT, INFERENCE, INTEGER, MAY_CALL, NO_GRAD, NONE, NUMBER, SAVED,
    UNKNOWN, UNSAVED_HOLDERS, WITHOUT_CUDA, Evidence, Value, held_within, items_join, join, join_all, join_states, kinds, storages_held, without_none,
)
from flake8_tensorcopy.model.classes import FLAG, constructor_flags, on_receiver, tested_on_receiver
from flake8_tensorcopy.model.events import Event, EventStore
from flake8_tensorcopy.scan import accumulation_added, children, descendants

TENSOR = kinds("tensor")
MODULE = kinds("module")
BOOL = Value(kinds("bool"))
COMPLEX = Value(kinds("number"), facts=frozenset(("complex",)))  # a complex number: it makes a real tensor complex
STRING = Value(kinds("str"))
_BUILTINS = frozenset(dir(builtins))
_CONTAINER_METHODS = frozenset(dir(list) + dir(dict) + dir(str) + dir(set) + dir(tuple))
# what a module's method of the same name does to the module itself, which it returns (``m.to(device)``)
MODULE_SELF_METHODS = frozenset(("to", "cuda", "cpu", "train", "eval", "double", "float", "half", "bfloat16",
                                 "requires_grad_"))
# methods only a tensor has: a call of one on an unknown receiver is evidence (a use)
TENSOR_ONLY_METHODS = (k.METHODS_RETURNING_TENSOR | k.INPLACE_METHODS | k.VIEW_METHODS) - _CONTAINER_METHODS - {
    "sum", "mean", "max", "min", "all", "any", "copy", "astype", "reshape", "transpose", "view",
    "flatten", "squeeze", "round", "clip", "dot", "std", "var", "prod", "argmax", "argmin", "repeat",
    "take", "fill", "sort", "cumsum", "tolist", "item", "numpy", "abs", "real", "imag",
}
_OPERATOR_FUNCTIONS = {ast.Mult: "torch.mul", ast.MatMult: "torch.matmul", ast.Div: "torch.div",
                       ast.Pow: "torch.pow", ast.Add: "torch.add", ast.Sub: "torch.sub"}


def _constant(node) -> object:
    return node.value if type(node) is ast.Constant else None


def is_none(node) -> bool:
    """The constant ``None`` (``batch_size=None``, ``Tensor | None``)."""
    return type(node) is ast.Constant and node.value is None


def _device_of(node) -> frozenset:
    """The device a ``"cuda:0"`` / ``torch.device("cpu")`` argument names (empty: unknown)."""
    if type(node) is ast.Call and node.args:
        node = node.args[0]
    text = _constant(node)
    if type(text) is str and text.split(":")[0] in ("cpu", "cuda", "mps", "xla", "meta"):
        return frozenset((text.split(":")[0],))
    return EMPTY


HOST = frozenset(("cpu",))


def _non_blocking(node: ast.Call) -> bool:
    return _constant(_keyword(node, "non_blocking")) is True


def _keyword(node: ast.Call, name: str):
    for keyword in node.keywords:
        if keyword.arg == name:
            return keyword.value
    return None


def _dtype_argument(node: ast.Call, qual: str):
    """The ``dtype`` a call is given, by keyword or, for a NumPy function taking it there, by position."""
    at = k.NUMPY_DTYPE_AT.get(qual)
    given = _keyword(node, "dtype")
    return node.args[at] if given is None and at is not None and len(node.args) > at else given


def _why(evidence: Evidence, *components: str) -> tuple:
    return tuple((component, evidence) for component in components)


class Transfer:
    """Runs the operations of one function's graph; ``frame`` is that function's solve."""

    def __init__(self, model, function, summary_mode: bool):
        self.model = model
        self.function = function
        self.summary_mode = summary_mode
        self.recording = False
        self.block = 0
        self.order = 0
        self.store: EventStore = model.events
        self.zero_dim_nodes: set = set()  # operations whose last result was 0-d
        self.fresh_nodes: set = set()  # operations whose last result was new memory no one else holds
        self.module_calls: set = set()  # calls whose result is a module's output
        self.indexed: Optional[tuple] = None  # (the value of the subscript being evaluated, its part)
        self.metadata_of = None  # the object of ``x.shape`` being evaluated
        self.rebinding: frozenset = EMPTY  # the names the assignment being evaluated rebinds
        self.assigning: Optional[ast.Assign] = None  # that assignment
        self.naming: Optional[tuple] = None  # (the value, the one name it is bound to) of the statement being run
        self.saved_outputs: set = set()  # storages the statement being evaluated saved as an output
        self.discarded = None
        # (its value, the steady test's key, the value where it held, where it failed) of the last
        # ``a if test else b`` evaluated: an assignment of that value to a name guards it (``GUARDED``)
        self.conditioned: Optional[tuple] = None
        self.effects: Optional[list] = None  # the recorded changes of the block being run (``solver.solve_recording``)
        self.written: list = []  # the storages of each write event it recorded (a comprehension whose element writes runs twice)

    # ----- events
    def record(self, kind, node, place, value, state, **detail) -> None:
        if self.recording:
            # False where autograd records nothing (``torch.no_grad()``, the false branch of ``is_grad_enabled()``)
            detail["grad_mode"] = not state.get(NO_GRAD) and GRAD_OFF not in state.get(INFERENCE, EMPTY)
            self.order += 1
            if kind == "write":
                self.written.append(value.storages if value is not None else EMPTY)
            event = Event(kind, node, place, value, self.function, self.block, self.order,
                          state.get(IN_FLIGHT, EMPTY), detail)
            if self.effects is None:
                self.store.add(event)
            else:
                self.effects.append(event)

    def effect(self, change) -> None:
        """Make a recorded change (what a call site tells its callee) now, or, while the solver
        records as it goes, once the block's last run is known to be its final one."""
        if self.effects is None:
            change()
        else:
            self.effects.append(change)

    def commit(self, effects: list) -> None:
        """Make the changes ``effect`` and ``record`` kept back, in the order they were made."""
        for change in effects:
            if type(change) is Event:
                if change.kind == "alias" and change.place is None:  # the call's own result came after it
                    change.detail["fresh_source"] = id(change.detail["source_node"]) in self.fresh_nodes
                self.store.add(change)
            else:
                change()

    # ----- statements
    def execute(self, op, state: dict) -> None:
        kind = type(op)
        self.saved_outputs = set()
        if kind is tuple:
            getattr(self, "op_" + op[0])(op, state)
            return
        handler = getattr(self, "stmt_" + kind.__name__, None)
        if handler is not None:
            handler(op, state)
        else:
            for child in children(op):
                if isinstance(child, ast.expr):
                    self.evaluate(child, state)

    def stmt_Expr(self, node, state):
        self.discarded = node.value  # a call made for what it does, its result unused
        self.evaluate(node.value, state)

    def stmt_Assign(self, node, state):
        self.rebinding = frozenset(target.id for target in node.targets if type(target) is ast.Name)
        self.assigning = node
        single = len(node.targets) == 1 and type(node.targets[0]) is ast.Name
        self.naming = (node.value, node.targets[0].id) if single else None
        value = self.evaluate(node.value, state)
        self.rebinding, self.assigning, self.naming = EMPTY, None, None
        receiver = self.function.names[0] if self.function.receiver_offset else None
        value = self.assigned(node.value, value, state, kept_past_the_call=self.summary_mode and all(
            on_receiver(target, receiver) or type(target) is ast.Name and target.id in self.function.graph.declared_global
            for target in node.targets))
        value = self.assigned_each(node, value, state)
        if len(node.targets) == 1 and type(node.targets[0]) is ast.Name and not value.is_tensor:
            value = self.named_test(node.value, state) or value
        self.accumulated(node, value, state)
        for target in node.targets:
            self.assign(target, value, state, node)
        self.sizes_named(node, state)

    def sizes_named(self, node: ast.Assign, state) -> None:
        """``b, c, h, w = x.shape`` (or ``x.size()``): each name holds that size of ``x``, where it
        is known (or, in a summary, of a parameter as passed), for the layouts a later
        ``reshape(b, h * w, c)`` asks for."""
        shape = node.value
        if type(shape) is ast.Call and type(shape.func) is ast.Attribute and shape.func.attr == "size" \
                and not shape.args and not shape.keywords:
            shape = ast.copy_location(ast.Attribute(value=shape.func.value, attr="shape", ctx=ast.Load()), shape)
        if type(shape) is not ast.Attribute or shape.attr != "shape" or len(node.targets) != 1 \
                or type(node.targets[0]) not in (ast.Tuple, ast.List):
            return
        names = node.targets[0].elts
        if any(type(name) is ast.Starred for name in names):
            return
        for dim, name in enumerate(names):
            size = self.size_argument(ast.Subscript(value=shape, slice=ast.Constant(dim), ctx=ast.Load()), state)
            if size is not None and type(name) is ast.Name and type(state.get(name.id)) is Value:
                state[name.id] = state[name.id]._replace(facts=state[name.id].facts | {layout.SIZE + repr(size)})

    def assigned_each(self, node: ast.Assign, value: Value, state) -> Value:
        """``best_loss, best = loss.item(), theta``: each name bound to a name of the literal on
        the right is that object under one more name, as ``best = theta`` is."""
        elements = getattr(node.value, "elts", None)
        if type(node.value) not in (ast.Tuple, ast.List) or value.items is None or not all(
                type(target) in (ast.Tuple, ast.List) and len(target.elts) == len(elements)
                and not any(type(element) is ast.Starred for element in target.elts) for target in node.targets):
            return value
        items = dict(value.items)
        for position, element in enumerate(elements):
            item = items.get(str(position))
            if item is not None and type(element) in (ast.Name, ast.Attribute):
                items[str(position)] = self.assigned(element, item, state)
        return value._replace(items=tuple(items.items()))

    def accumulated(self, node: ast.Assign, value: Value, state) -> None:
        """``acc = acc + v``, ``ema = 0.9 * ema + 0.1 * v`` (in a branch of ``a if c else b``
        too): an ``accumulate`` event of the new value, as ``acc += v`` records one of ``v`` (its
        ``added`` detail: the operand the accumulator did not hold, a constant factor left out)."""
        place = place_of(node.targets[0]) if len(node.targets) == 1 else None
        target = node.targets[0] if len(node.targets) == 1 else None
        if type(target) is ast.Subscript and self.recording and self.varies_each_pass(target.slice, node):
            # ``history[step] = loss``: a new entry at each pass of a loop, as ``append`` adds one
            container = place_of(target.value)
            old = state.get(container) if container is not None else None
            if type(old) is Value and old.kinds & {"dict", "list", "?"} and not old.is_tensor and not _is_array(old):
                self.record("accumulate", node, container, value, state, old=old, added=node.value)
        added = accumulation_added(node.value, place, _read_place) if place is not None and self.recording else None
        if added is not None:
            # what a message names: the step's operand, where ``added`` is the whole ``a if c else b``
            shown = accumulation_added(added.orelse, place, _read_place) or accumulation_added(
                added.body, place, _read_place) or added if type(added) is ast.IfExp else added
            self.record("accumulate", node, place, value, state, old=state.get(place, UNKNOWN), added=added,
                        shown=shown)

    def stmt_AnnAssign(self, node, state):
        if node.value is not None:
            self.naming = (node.value, node.target.id) if type(node.target) is ast.Name else None
            value = self.evaluate(node.value, state)
            self.naming = None
            self.assign(node.target, self.annotated(value, node.annotation), state, node)

    def stmt_AugAssign(self, node, state):
        old = self.evaluate(node.target, state)
        other = self.evaluate(node.value, state)
        self.record("accumulate", node, place_of(node.target), other, state, old=old, added=node.value)
        if _is_array(old) or self.summary_mode and old.kind_from and not old.is_tensor:
            # ``a += 1`` on a NumPy array writes it in place too, and on a parameter a caller may
            # pass one (or a tensor) to
            self.write(node.target, old, state, node, statement=node)
            self.rebind(node.target, old._replace(fresh=False), state, same_memory=True)
            return
        if self.summary_mode and not old.is_tensor:  # ``s.image += 1``: in place where a caller's is an array
            self.attribute_written(node.target, state, True, old)
        if old.is_tensor:  # ``x += y`` on a tensor writes its storage in place
            self.write(node.target, old, state, node, grad=other.grad, statement=node)
            written = old._replace(grad=old.grad or other.grad, graph=old.graph or other.grad, fresh=False,
                                   facts=old.facts - BLANK)  # ``buf += 1`` builds on the content: no longer blank
            if old.kinds == TENSOR:
                self.rebind(node.target, written, state, same_memory=True)
                return
            old = written
        result = self.arithmetic(node.op, old, other, node, state)
        if "?" in old.kinds and old.storages:  # a tensor, an array or a list (the same object, written) or a number (new)
            result = join(old._replace(fresh=False), result)
        self.rebind(node.target, result, state)

    def stmt_Return(self, node, state):
        value = NONE if node.value is None else self.evaluate(node.value, state)
        state["!return"] = value if "!return" not in state else join(state["!return"], value)
        self.record("return", node, None, value, state)
        if self.summary_mode and state.get(SAVED):  # what this path saved of what it returns
            # a tensor joined over paths (a loop whose last pass may skip the saving op) counts only
            # where all of it was saved; the items of a tuple each count on their own
            held = storages_held(value)
            if value.items is None and not held <= state[SAVED]:
                held = EMPTY
            state["!saved_returned"] = state.get("!saved_returned", EMPTY) | (state[SAVED] & held)

    def yielded(self, node, state) -> Value:
        """``yield v``: what the generator hands its consumer, one item of what a call returns
        (``"!yields"``); ``yield from xs`` hands each of ``xs``'s items. What it gets back is unknown."""
        value = NONE if node.value is None else self.evaluate(node.value, state)
        if type(node) is ast.YieldFrom:
            value = self.element(value)
        state["!yields"] = value if "!yields" not in state else join(state["!yields"], value)
        return UNKNOWN

    def stmt_Delete(self, node, state):
        for target in node.targets:
            place = place_of(target)
            if place is not None and type(target) is not ast.Subscript:
                self.forget(place, state)

    def stmt_Import(self, node, state):
        for alias in node.names:
            if alias.asname:
                state[alias.asname] = Value(kinds("pymodule"), qual=alias.name)
            else:
                top = alias.name.split(".")[0]
                state[top] = Value(kinds("pymodule"), qual=top)

    def stmt_ImportFrom(self, node, state):
        base = node.module or ""
        for alias in node.names:
            if alias.name != "*":
                name = alias.asname or alias.name
                state[name] = Value(kinds("pymodule"), qual=f"{base}.{alias.name}" if base else alias.name)

    def op_test(self, op, state):
        self.evaluate(op[1], state)

    def op_assume(self, op, state):
        if self.impossible(op[1], op[2], state):
            state.clear()
            state[DEAD] = True  # the solver goes no further along this path
            return
        self.narrow(op[1], op[2], state)
        self.assume_name(op[1], op[2], state)

    def impossible(self, test, truth: bool, state: dict) -> bool:
        """A condition no value reaching it can meet: ``x is not None`` (or ``x``) where the local
        name ``x`` is surely None (a private helper's optional argument no call of the file
        passes; not a public function's parameter, which callers elsewhere may pass), or a test
        on a steady local flag every path here passed the other way (``if cast:`` inside ``if
        not cast:``)."""
        while type(test) is ast.UnaryOp and type(test.op) is ast.Not:
            test, truth = test.operand, not truth
        if type(test) is ast.BoolOp and truth == (type(test.op) is ast.And):  # every operand passed this way
            return any(self.impossible(operand, truth, state) for operand in test.values)
        steady = self.steady_test(test, truth, state)
        if steady is not None and (steady[0], not steady[1]) in state.get(ASSUMED, EMPTY):
            return True
        if _flag_contradicts(test, truth, state):
            return True
        if type(test) is ast.Compare and len(test.ops) == 1 and type(test.ops[0]) in (ast.Is, ast.IsNot) \
                and type(test.comparators[0]) is ast.Constant and test.comparators[0].value is None:
            test, truth = test.left, truth == (type(test.ops[0]) is ast.IsNot)  # ``x is not None``: ``x`` is something
        if type(test) is not ast.Name or test.id in self.function.names and not private(self.function):
            return False
        value = state.get(test.id)
        return truth and type(value) is Value and value.kinds == NONE.kinds

    def assume_name(self, test, truth: bool, state: dict) -> None:
        """A condition on a local name held on this path (``if cast:``, ``if not cast:``): the
        values an earlier join merged under the same name's two values take this path's back."""
        while type(test) is ast.UnaryOp and type(test.op) is ast.Not:
            test, truth = test.operand, not truth
        if type(test) is ast.BoolOp and truth == (type(test.op) is ast.And):  # each operand held this way
            for operand in test.values:
                self.assume_name(operand, truth, state)
            return
        steady = self.steady_test(test, truth, state)
        if steady is None:
            return
        name, truth = steady
        for condition, place, when_true, when_false, joined in state.get(GUARDED, EMPTY):
            if condition == name and state.get(place) == joined:
                state[place] = when_true if truth else when_false
        state[ASSUMED] = state.get(ASSUMED, EMPTY) - {(name, not truth)} | {(name, truth)}

    def steady_test(self, test, truth: bool, state: dict) -> Optional[tuple]:
        """A condition only an assignment in this function changes, as (its key, whether it held):
        a steady flag (``cast``), or whether a local name is None (``mask is None``: no object
        becomes None or stops being it, only a rebinding of the name changes that)."""
        while type(test) is ast.UnaryOp and type(test.op) is ast.Not:
            test, truth = test.operand, not truth
        if type(test) is ast.Name:
            return (test.id, truth) if self.steady_flag(test.id, state) else None
        if type(test) is ast.Attribute and test.attr == "training" and self.function.receiver_offset \
                and place_of(test.value) == self.function.names[0]:  # a module's mode, the same all through a call
            return "self.training", truth
        if type(test) is ast.Compare and len(test.ops) == 1 and type(test.ops[0]) in (ast.Is, ast.IsNot) \
                and type(test.left) is ast.Name and is_none(test.comparators[0]) \
                and self.function is not self.model.module and None not in self.name_uses().get(test.left.id, ()):
            return f"{test.left.id} is None", truth == (type(test.ops[0]) is ast.Is)
        return None

    def steady_flag(self, name: str, state: dict) -> bool:
        """A name whose truth only an assignment in this function changes: a local of the
        function (not module code, not ``global``/``nonlocal`` anywhere in it) holding a
        number, a string, a bool or None (a list's truth changes as it grows)."""
        value = state.get(name)
        if self.function is self.model.module or type(value) is not Value or not value.kinds \
                or not value.kinds <= _SCALAR_KINDS:
            return False
        return None not in self.name_uses().get(name, ())  # no ``global``/``nonlocal`` declares it

    def name_uses(self) -> dict:
        """``_name_uses`` of the function being solved, walked once."""
        function = self.function
        if function.name_uses is None:
            function.name_uses = _name_uses(function.node)
        return function.name_uses

    def op_iterate(self, op, state):
        """The iterable, evaluated once as the loop begins. A loop that rebinds only the item
        it visits, and reads no other (``for k, v in d.items(): d[k] = torch.tensor(v)``),
        leaves the items later passes visit as they were: each pass walks the container as it began."""
        node = op[1]
        iterated = self.evaluate(node.iter, state)
        frozen = _frozen_by_loop(node)
        if frozen is not None and type(state.get(frozen)) is Value and "module" in state[frozen].kinds:
            state[frozen] = state[frozen]._replace(facts=state[frozen].facts | {FROZEN})
        elif _unfreezes(node):  # ``for p in net[1].parameters(): p.requires_grad = True``
            thaw_holders(place_of(node.iter.func.value), state)
        container = _rebinds_only_visited_items(node)
        if container is not None and (not _iterates_the_container(node.iter) or iterated.kinds == frozenset(("dict",))):
            state[_at_start(node)] = frozenset(((container, state.get(container)),))

    def op_for(self, op, state):
        node = op[1]
        at_start = state.get(_at_start(node))
        if at_start is not None:  # the container as the loop began: one join, then the iterable over it
            container, held = next(iter(at_start))[0], [held for _, held in at_start]
            if None in held:  # a place the loop's start did not hold: as unknown as it was then
                state.pop(container, None)
            else:
                state[container] = join_all(held)
        recording, self.recording = self.recording, False
        iterated = self.evaluate(node.iter, state)  # already evaluated (and recorded) before the loop
        self.recording = recording
        self.generator_resumed(iterated, node, state)  # it runs to its next item, then the target is bound
        self.assign(node.target, self.iterated(node.iter, iterated, state), state, node)
        for target, constants in _loop_constants(node.target, node.iter):
            if target in state:
                state[target] = state[target]._replace(facts=state[target].facts | {ONE_OF + "|".join(constants)})
        lowest = _range_start(node.iter)
        if lowest is not None and type(node.target) is ast.Name and node.target.id in state:  # ``for i in range(1, n)``
            held = state[node.target.id]
            state[node.target.id] = held._replace(facts=held.facts | {f"{AT_LEAST}{lowest}", f"{STEPPED}{node.target.id}"})

    def generator_resumed(self, iterated: Value, node, state) -> None:
        """A loop over a generator of the file runs its body between two items: a backward or an
        optimizer step there happens in each iteration of this loop (``for loss in train_steps(...)``)."""
        for storage in iterated.storages:
            generator = self.model.functions_by_name.get(storage[1]) if type(storage) is tuple \
                and storage[:1] == ("generator",) else None
            summary = self.model.summary(generator) if generator is not None else None
            if summary is None:
                continue
            if summary.backward:
                frees_saved(None, state)
                backpropagates(state)
                self.record("backward", node.target, None, NONE, state, resumed=True)
            if summary.steps:
                self.record("step", node.target, None, NONE, state)
            if summary.refills:  # the memory it handed out before, written for the next item, then handed again
                item = self.element(iterated)
                refilled = frozenset(storage for storage in storages_held(item) if storage in summary.refills
                                     or type(storage) is tuple and storage[:1] == ("call",) and storage[2] in summary.refills)
                if refilled:
                    self.write(node.iter, Value(kinds("?"), storages=refilled), state, node, refilled_by=generator.name)
                    self.record("call", node.iter, None, item, state, callee=generator.name, resumed=True)

    def op_with(self, op, state):
        item = op[1]
        value = self.evaluate(item.context_expr, state)
        if grad_disabled_by(self.model, item.context_expr):
            state[NO_GRAD] = state.get(NO_GRAD, EMPTY) | {_site(item.context_expr)}
        elif grad_enabled_by(self.model, item.context_expr):
            state.pop(INFERENCE, None)  # ``with torch.enable_grad():`` in an inference branch records again
            off = state.pop(NO_GRAD, None)  # and under ``no_grad`` (a decorator, an outer block) too, until it ends
            if off:
                state[GRAD_OFF_AROUND + repr(_site(item.context_expr))] = off
        if item.optional_vars is not None:
            self.assign(item.optional_vars, value, state, item.context_expr)

    def op_with_end(self, op, state):
        """Leaving a ``with`` block normally: a context it entered that turned grad off ends, and
        one that turned it on hands back the grad mode around it."""
        site = _site(op[1].context_expr)
        left = state.get(NO_GRAD, EMPTY) - {site} | state.pop(GRAD_OFF_AROUND + repr(site), EMPTY)
        if left:
            state[NO_GRAD] = left
        else:
            state.pop(NO_GRAD, None)

    def op_except(self, op, state):
        handler = op[1]
        if handler.name:
            state[handler.name] = Value(kinds("exception"))

    def op_case(self, op, state):
        case, subject = op[1], op[2]
        recording, self.recording = self.recording, False
        value = self.evaluate(subject, state)  # already evaluated (and recorded) by its test
        self.recording = recording
        for node in ast.walk(case.pattern):
            name = getattr(node, "name", None)
            if type(name) is str:
                self.forget(name, state)
                state[name] = value if type(node) is ast.MatchAs and node.pattern is None else UNKNOWN

    def op_def(self, op, state):
        node = op[1]
        info = self.model.function_of(node, self.function)
        for decorator in node.decorator_list:
            self.evaluate(decorator, state)
        if type(node) is ast.ClassDef:
            state[node.name] = Value(kinds("class"), qual="class:" + node.name)
        else:
            self.default_arguments(info, node, state)
            state[node.name] = self.with_captured(Value(kinds("function"), qual="local:" + info.name), info, state)
        self.set_closure(info, state)

    def default_arguments(self, function, node, state: dict) -> None:
        """A default the ``def`` evaluates that is a tensor or an array (``base=torch.linspace(0,
        1, 5)``): one object that every call omitting the argument receives, joined into what
        the callers pass (a default of another kind says nothing of what callers elsewhere pass)."""
        arguments = node.args
        positional = arguments.posonlyargs + arguments.args
        pairs = list(zip(positional[len(positional) - len(arguments.defaults):], arguments.defaults)) + [
            (argument, default) for argument, default in zip(arguments.kwonlyargs, arguments.kw_defaults)
            if default is not None]
        given = {}
        for argument, default in pairs:
            value = self.evaluate(default, state)
            if value.is_tensor or "ndarray" in value.kinds:
                given[argument.arg] = value
        if given and self.recording:
            self.effect(partial(self.model.passed_to, function, self.model.bind_arguments(function, [], given)))

    # ----- places
    def forget(self, place: str, state: dict) -> None:
        """Rebinding ``foo`` or ``foo.bar`` forgets ``foo.bar.baz`` (mypy's binder)."""
        state.pop(place, None)
        prefix = place + "."
        for key in [key for key in state if key.startswith(prefix)]:
            del state[key]
        if ASSUMED in state:  # what was assumed of the name no longer holds (``mask is None`` too)
            state[ASSUMED] = frozenset(literal for literal in state[ASSUMED] if literal[0].partition(" ")[0] != place)
        if GUARDED in state:
            state[GUARDED] = frozenset(guard for guard in state[GUARDED] if guard[0].partition(" ")[0] != place)
        if UNSAVED_HOLDERS in state:
            state[UNSAVED_HOLDERS] = frozenset(pair for pair in state[UNSAVED_HOLDERS]
                                               if pair[0] != place and not pair[0].startswith(prefix))

    def rebind(self, target, value: Value, state: dict, same_memory: bool = False) -> None:
        """``same_memory``: an in-place ``x += y`` binds the memory ``x`` held (and which of it
        ``x`` holds only where nothing saved it stays so)."""
        place = place_of(target)
        if place is not None and type(target) is not ast.Subscript:
            kept = EMPTY if not same_memory else frozenset(
                pair for pair in state.get(UNSAVED_HOLDERS, EMPTY) if pair[0] == place)
            self.forget(place, state)
            state[place] = value
            if kept:
                state[UNSAVED_HOLDERS] = state.get(UNSAVED_HOLDERS, EMPTY) | kept
        elif type(target) is ast.Subscript:
            self.store_item(target, value, state)

    def assign(self, target, value: Value, state: dict, node) -> None:
        kind = type(target)
        if kind is ast.Name or kind is ast.Attribute:
            place = place_of(target)
            if kind is ast.Attribute and place is None:
                self.evaluate(target.value, state)
                self.record("escape", target, None, value, state)
                return
            if kind is ast.Attribute:
                self.attribute_store(target, value, state)
            owner = place_of(target.value) if kind is ast.Attribute else None
            if owner in state and "requires_grad" in k.role_of("attribute", target.attr):  # ``x.requires_grad = True``
                self.requires_grad(state[owner], owner, node.value if type(node) is ast.Assign else None, state)
            if kind is ast.Name and place in self.function.backpropagated and value.kinds == UNKNOWN.kinds:
                value = backpropagated(value)
            if kind is ast.Name and value.kinds and value.kinds <= _NUMERIC and type(node) not in (ast.For, ast.AsyncFor):
                # where this binding reaches, a split at the name (``x[:n]``, ``x[n:]``) is at one place
                value = value._replace(facts=frozenset(fact for fact in value.facts if not fact.startswith(BOUND_AT))
                                       | {f"{BOUND_AT}{target.lineno},{target.col_offset}"})
            before = state.get(place)
            self.forget(place, state)
            state[place] = value
            conditioned = self.conditioned
            if kind is ast.Name and conditioned is not None and conditioned[0] is value:
                state[GUARDED] = state.get(GUARDED, EMPTY) | {(conditioned[1], place, conditioned[2], conditioned[3], value)}
            if kind is ast.Name and type(node) is ast.Assign and type(node.value) is ast.Name:
                _hold_unsaved_as(node.value.id, place, state)
            if type(before) is Value and before.storages & state.get(SAVED, EMPTY):
                release_saved(before.storages & state[SAVED], state)
            self.record("bind", target, place, value, state, expression=getattr(node, "value", None))
        elif kind is ast.Subscript:
            self.store_item(target, value, state, node)
        elif kind is ast.Tuple or kind is ast.List:
            for position, element in enumerate(target.elts):
                if type(element) is ast.Starred:
                    rest = Value(kinds("list"), items=(("*", self.element(value)),))
                    self.assign(element.value, rest, state, node)
                elif value.items is None and type(node) is ast.Assign and id(node.value) in self.module_calls:
                    # ``out, weights = self.attn(q, k, v)``: a module's outputs, each a tensor of its own
                    line, column = _site(node.value)[:2]
                    self.assign(element, value._replace(storages=frozenset(((line, column, 0, position),))), state, node)
                else:
                    item = value.item(str(position)) if value.items is not None else self.item_of_a_call(
                        value, str(position))
                    self.assign(element, item if item is not None else self.element(value), state, node)
        elif kind is ast.Starred:
            self.assign(target.value, value, state, node)

    def store_item(self, target: ast.Subscript, value: Value, state: dict, statement=None) -> None:
        if "module" in value.kinds:  # ``model[2] = nn.Linear(...)``: a new layer, its parameters require grad
            thaw_holders(place_of(target.value) + "[*]" if place_of(target.value) else None, state)
        container = self.evaluate(target.value, state)
        self.evaluate(target.slice, state)
        # ``x[i] = v`` writes a tensor or an array in place (a parameter: what a caller passes);
        # on what may be a list or a dict it replaces an item and writes no tensor; nor does a
        # string key (``graph["desc"] = s``: no tensor takes one, a NumPy record array does)
        named_field = type(target.slice) is ast.Constant and type(target.slice.value) is str
        if not container.kinds & PY_CONTAINERS and (
                container.is_tensor and not named_field or "ndarray" in container.kinds
                or self.summary_mode and container.kind_from and not named_field):
            self.write(target.value, container, state, target, grad=value.grad, source=value, statement=statement,
                       replaces_item=True, part=_part_indexed(target.slice, state, self.bound_again))
            written_place = place_of(target.value)
            if value.grad and not container.grad and container.is_tensor and not state.get(NO_GRAD) \
                    and written_place is not None and type(state.get(written_place)) is Value:
                # ``out = torch.zeros_like(h); out[m] = h[m]``: the tensor is in the value's graph now (CopySlices)
                state[written_place] = state[written_place]._replace(
                    grad=True, graph=True, grad_from=state[written_place].grad_from | value.grad_from)
        elif self.summary_mode and not named_field and not container.kinds & PY_CONTAINERS:
            self.attribute_written(target.value, state, True, container)
            # ``for a in arrays: a[:] = v``: a write of the items the caller passes, where they are arrays
            handed = {parameter_index(storage[1], self.function.name) for storage in container.storages
                      if type(storage) is tuple and len(storage) == 2 and storage[0] == "item"} - {None}
            if handed:
                state["!items_assigned"] = state.get("!items_assigned", EMPTY) | handed
        place = place_of(target.value)
        if place is None or container.items is None and (container.is_tensor or _is_array(container)):
            return
        if _indexes_dimensions(target.slice):
            return  # ``m[:, :2, 2] = v`` copies values into an array, it keeps no reference to ``v``
        if self.bind_place(place, with_item(container, key_of(target.slice), value), state):
            self.record("bind", target, place_of(target), value, state)

    def attributes_written(self, function, summary, node, receiver_place: Optional[str], state: dict,
                           instance) -> None:
        """The callee's writes of an attribute of an object the caller passes (``normalize(s)``
        writing ``s.image``): a write of what the caller's ``s.image`` holds, through the aliases
        that holds (the array ``raw.numpy()`` put in the record); of an object no place holds
        (``mask_(make_batch(t))``), what the value passed holds in that field."""
        if not summary.attribute_writes or type(node) is not ast.Call:
            return
        places = self.argument_places(function, node)
        for index, path, only_of_arrays in sorted(summary.attribute_writes):
            owner = places[index] if index < len(places) else None
            if index == 0 and function.receiver_offset:
                owner = receiver_place or owner
            if self.summary_mode and owner is not None:  # ``enhance(frame)`` calling ``brighten(frame)``: its own
                self.parameter_place_written(f"{owner}.{path}", state, only_of_arrays)  # caller's object is written
            written = self.held_by_this_object(owner, path, state) if owner is not None else None
            if written is None and not _has_fields(state.get(owner)):  # not one whose fields this caller knows
                written = _field_held(instance.actual(index), path)
            if written is not None and written.storages and not written.pinned and (
                    _array_only(written) or not only_of_arrays and not written.kinds <= _PLAIN_DATA):
                self.write(node, written, state, node, through=frozenset((written.made,)), temporaries=EMPTY)

    @staticmethod
    def held_by_this_object(owner: str, path: str, state: dict) -> Optional[Value]:
        """What this caller knows the object at ``owner`` to hold at ``path``: a place it bound
        (``tr.ref`` a method stored), or a field of the object as built here (``frame.pixels`` of
        ``Frame(video.numpy())``); None where only the class's join over every object is known."""
        value, place = state.get(owner), owner
        for name in path.split("."):
            place = f"{place}.{name}"
            held = state.get(place)
            if type(held) is not Value:
                held = _named_field(value, name) if type(value) is Value else None
            if held is None:
                return None
            value = held
        return value

    def argument_places(self, function, node) -> list:
        """Per parameter of ``function``, the place a call passes there (``store`` in
        ``remember(model, store)``, the receiver of a method); None where it passes an expression
        or none; empty where it spreads ``*args`` (no position is known)."""
        if type(node) is not ast.Call or any(type(argument) is ast.Starred for argument in node.args):
            return []
        receiver = node.func.value if type(node.func) is ast.Attribute else None
        expressions = self.model.bind_arguments(function, [receiver] * function.receiver_offset + list(node.args), {
            keyword.arg: keyword.value for keyword in node.keywords if keyword.arg})
        return [place_of(expression) if expression is not None else None for expression in expressions]

    def kept_arguments(self, function, arguments, actuals, node, state: dict) -> dict:
        """Per argument, whether this caller still holds it after the call: not one it made for
        the call (a fresh value, a temporary no name holds) or holds only under the names the
        statement rebinds (``x = f(x)``)."""
        kept = {}
        shift = len(arguments) - len(node.args) if type(node) is ast.Call else -1
        if shift < 0 or any(type(argument) is ast.Starred for argument in node.args):
            expressions = []
        else:  # the expressions passed, bound as the values are (a method's receiver first)
            expressions = self.model.bind_arguments(function, [None] * shift + list(node.args), {
                keyword.arg: keyword.value for keyword in node.keywords if keyword.arg})
        for index, value in enumerate(actuals):
            if value is None or index < function.receiver_offset:
                continue
            expression = expressions[index] if index < len(expressions) else None
            temporary = expression is not None and place_of(expression) is None and not value.storages
            holders = {place for storage in value.storages for place in self.store.holders(storage, state)
                       if place[:1] != "!"} - self.rebinding
            if value.storages and not holders:  # ``f(ds[0])``: held by the object it was read out of
                holders = self.object_read_out_of(expression, state)
            # gone once the comprehension is done, or replaced by the statement (``x[k] = f(x[k])``: ``x`` no
            # longer holds what it passes, another name may)
            holders -= self.comprehension_names(node)
            passed = place_of(expression) if expression is not None else None
            if passed is not None and not passed.isidentifier() and passed in self.replaced_places():
                holders.discard(passed.split(".", 1)[0].split("[", 1)[0])
            dropped = value.fresh or temporary or bool(value.storages) and not holders \
                or self.parameters_let_go(holders, node)
            names = holders if value.storages else {place_of(expression)} if expression is not None else {None}
            kept[index] = not (dropped or self.handed_over(names, node)) or self.items_kept(value, state, node)
        return kept

    def comprehension_names(self, node) -> set:
        """The names the comprehensions around ``node`` bind (``single`` of ``[f(single) for
        single in items]``)."""
        function = self.function
        if function.comprehensions is None:
            function.comprehensions = [outer for outer in descendants(function.node) if type(outer) in (
                ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)]
        return {target.id for outer in function.comprehensions if inside(node, outer)
                for generator in outer.generators for target in ast.walk(generator.target) if type(target) is ast.Name}

    def replaced_places(self) -> frozenset:
        """The places the assignment being evaluated binds (``d[key] = pad(d[key])``): the item or
        attribute a call there is given from one of them, it replaces."""
        node = self.assigning
        if node is None:
            return EMPTY
        return frozenset(place_of(target) for outer in node.targets for target in (
            outer.elts if type(outer) in (ast.Tuple, ast.List) else [outer]) if place_of(target) is not None)

    def parameters_let_go(self, holders: set, call) -> bool:
        """Whether the caller holds the argument only under its own parameters, reads none of
        them after the call, and every call of the file passing those lets them go (``d[k] =
        self.pad(d[k])``): none reads it again."""
        function = self.function
        kept = function.kept_by_callers
        if not holders or not kept or not holders <= set(function.names[function.receiver_offset:]):
            return False
        if any(self.read_again(name, call) for name in holders):
            return False  # ``center(data)`` then ``data.mean(0)``: this function reads it again
        return not any(kept.get(function.names.index(name), True) for name in holders)

    def read_again(self, name: str, call) -> bool:
        """Whether this function reads the name after ``call`` (in a later pass of a loop around
        it too), before binding it anew."""
        uses = self.name_uses()
        loops = [loop for loop in uses.get(None, ()) if inside(call, loop)]
        later = [load for load in uses.get(name, ()) if load is None or not (inside(load, call) or _before(load, call, loops))]
        return bool(later) and (None in later or min(load.lineno for load in later) <= _rebound_after(
            self.function.node, call, name))

    def names_read_again(self, function, arguments, call, written: frozenset) -> dict:
        """Per parameter the callee writes (``written``) passed a plain name, whether this caller
        reads that name again after the call (``out = cutout(sample)``, then ``sample.mean()``)."""
        shift = len(arguments) - len(call.args) if type(call) is ast.Call else -1
        if shift < 0 or any(type(argument) is ast.Starred for argument in call.args):
            return {}
        expressions = self.model.bind_arguments(function, [None] * shift + list(call.args), {
            keyword.arg: keyword.value for keyword in call.keywords if keyword.arg})
        # (not a name the call's own statement binds anew: ``sample = erase(sample)``)
        return {index: expression.id not in self.rebinding and self.read_again(expression.id, call)
                for index, expression in enumerate(expressions)
                if type(expression) is ast.Name and index >= function.receiver_offset and index in written}

    def object_read_out_of(self, expression, state: dict) -> set:
        """``f(ds[0])``, ``f(store.latest)``: the name of the caller holding the object of the
        file's classes the memory was read out of (the object keeps it); else none."""
        place = place_of(expression) if expression is not None else None
        if place is None or place.isidentifier():
            return set()
        root = place.split(".", 1)[0].split("[", 1)[0]
        holder = state.get(root)
        return {root} if root not in self.rebinding and type(holder) is Value and _classes_of(holder) else set()

    def items_kept(self, container: Value, state: dict, node) -> bool:
        """Whether the caller holds, under names of its own, a tensor it passes inside a
        container (``total([a, b])``, ``merge(a, b)`` into ``*tensors``): the callee's write to an
        item is a write to ``a``, however new the list is."""
        item = container.all_items() if container.items else None
        if item is None or not item.is_tensor or not item.storages:
            return False
        holders = {place for storage in item.storages for place in self.store.holders(storage, state)
                   if place[:1] != "!"} - self.rebinding - self.comprehension_names(node)
        return bool(holders) and not self.handed_over(holders, node) and not self.parameters_let_go(holders, node)

    def varies_each_pass(self, key, node) -> bool:
        """Whether the key ``key`` of an item assignment is another at each pass of a loop around
        ``node``: every name it reads is bound anew by that loop (``for step, batch in
        enumerate(loader): d[step] = ...``)."""
        called = {id(call.func) for call in ast.walk(key) if type(call) is ast.Call}  # ``str(step)``: not ``str``
        names = {name.id for name in ast.walk(key) if type(name) is ast.Name and id(name) not in called}
        if not names or any(type(part) in (ast.Attribute, ast.Subscript) for part in ast.walk(key)):
            return False  # (``curve[batch.task]``: what an item holds may repeat from pass to pass)
        loops = [loop for loop in self.name_uses().get(None, ()) if inside(node, loop)]
        if self.function.receiver_offset and any(_iterates_own_parts(loop, self.function.names[0]) for loop in loops):
            return False  # ``for name, m in self.body.named_children()``: the same keys at each call of the method
        # every enclosing loop gives another key: an inner loop over a fixed set (``for phase in
        # ("train", "val")``) inside the training loop repeats its keys at each outer pass
        return bool(loops) and all(_rebinds_each_pass(loop, names) for loop in loops)

    def handed_over(self, names, call) -> bool:
        """Whether the caller holds the argument only under local names it uses nowhere but in
        this call (``maps = aggregate(); top = peak(maps)``, ``maps`` never read again, by no
        closure, outside any loop but one rebinding them at each pass: ``for batch in loader:
        step(batch)``): the callee may do what it likes with it."""
        function = self.function
        if function is self.model.module or type(call) is not ast.Call or not all(
                name is not None and name.isidentifier() and name not in function.names for name in names):
            return False
        uses = self.name_uses()
        loops = [loop for loop in uses.get(None, ()) if inside(call, loop)]
        innermost = max(loops, key=lambda loop: (loop.lineno, loop.col_offset)) if loops else None
        if innermost is not None and not _rebinds_each_pass(innermost, names) and any(
                load is None or inside(load, innermost) for name in names for load in uses.get(name, ())):
            return False  # the next iteration may pass or read it again
        return all(name in uses and all(load is not None and (inside(load, call) or _before(load, call, loops))
                                        for load in uses[name]) for name in names)

    def bind_place(self, place: str, value: Value, state: dict) -> bool:
        """Bind ``value`` to ``place``; an item (``d['a']``, ``d['a'][*]``) is put back into
        the containers holding it, down from the name or attribute the state keeps. False
        where that root is not in the state."""
        root, keys = split_items(place)
        if not keys:
            state[place] = value
            return True
        if root not in state or type(state[root]) is not Value:
            return False
        state[root] = _with_items(state[root], keys, value)
        return True

    def root_holder(self, target, value: Value, state: dict) -> frozenset:
        """The named place a write's target is a view or detached alias of (``self.W`` of
        ``self.W.detach()[:, i]``), where it holds the written memory."""
        while True:
            if type(target) is ast.Subscript:
                target = target.value
            elif type(target) is ast.Attribute and "detach" in k.role_of("attribute", target.attr):
                target = target.value
            elif type(target) is ast.Call and type(target.func) is ast.Attribute and not target.args and (
                    "detach" in k.role_of("method", target.func.attr) or target.func.attr in k.VIEW_METHODS):
                target = target.func.value
            else:
                break
        place = place_of(target)
        if place is None:
            return EMPTY
        recording, self.recording = self.recording, False
        held = self.evaluate(target, state)
        self.recording = recording
        return frozenset((place,)) if held.storages & value.storages else EMPTY

    def write(self, target, value: Value, state: dict, node, grad: bool = False, replaces_item: bool = False,
              kind: str = "write", **how) -> None:
        """An in-place write of ``value``'s storages, with who else holds them, what of them
        autograd saved, whether grad mode was on, and ``how`` (the method, the assigned value).
        ``replaces_item``: an item assignment, a tensor write only where a caller passes a tensor.
        ``kind`` "retag": a change of shape or strides only (``x.t_()``), its values kept."""
        if self.recording:
            place = place_of(target)
            holders = set()
            for storage in value.storages:
                holders.update(self.store.holders(storage, state, excluding=(place,)))
            if place is None and value.storages:  # ``self.W.detach()[:, i].zero_()``: ``self.W`` holds it
                holders.update(self.root_holder(target, value, state))
            for storage in value.storages:  # ``m.prune(0)`` writing ``W`` of ``m``: ``m.W`` holds it
                if type(storage) is tuple and storage[:1] == ("attribute",) and len(storage) == 3:
                    holders.update(f"{owner}.{storage[2]}" for owner in self.store.holders(storage[1], state)
                                   if owner.isidentifier())
            # a name a nested function or ``global`` code rebinds: what it holds unsaved is not kept
            rebound = place is not None and self.model.rebound_elsewhere(self.function, place, True)
            saved = saved_through(None if rebound else place, value, state)
            self.record(kind, node, place, value, state, holders=tuple(sorted(holders)), saved=saved, **how)
        if self.summary_mode and kind == "write" and "!yields" in state:
            # a generator writing what it handed out before (``buf[:] = next_rows`` after ``yield buf``):
            # its consumer's item changes when the next one is asked for
            refilled = frozenset(storage for storage in value.storages & storages_held(state["!yields"])
                                 if not _made_anew_each_pass(storage, node, self.function.node))
            if refilled:
                state[REFILLS] = state.get(REFILLS, EMPTY) | refilled
        if self.summary_mode and kind == "write":
            # ``self.buf[:] = v`` of what ``__init__`` made: each call writes it (not a pinned buffer:
            # the syncs that order its writes against copies in flight are not in a summary)
            held = made_elsewhere(value.storages, self.function.node) | _of_enclosing_parameters(
                value.storages, self.function) if not value.pinned else EMPTY
            if held:
                state["!writes_held"] = state.get("!writes_held", EMPTY) | held
                # the aliases those writes went through (``w.data`` of ``w = self.model[2].weight``)
                state[HELD_WRITTEN_THROUGH] = state.get(HELD_WRITTEN_THROUGH, EMPTY) | value.made | _written_name(
                    target, state).made
            for storage in value.storages:
                index = parameter_index(storage, self.function.name)
                if index is None and type(storage) is tuple and len(storage) == 2 and storage[0] == "item":
                    # an item of a list or ``*args`` it was handed, written in place (``a[:] = v``: where
                    # the caller's items are tensors or arrays)
                    within = parameter_index(storage[1], self.function.name)
                    if within is not None:
                        key = "!items_assigned" if replaces_item else "!items_written"
                        state[key] = state.get(key, EMPTY) | {within}
                if index is not None:
                    key = "!item_writes" if replaces_item else "!writes"
                    state[key] = state.get(key, EMPTY) | {index}
                    keys = {fact[len(WITHIN_PASSED):] for fact in value.facts if fact.startswith(WITHIN_PASSED)}
                    if keys:
                        # ``feats = batch["feats"]; feats[:, 0] = 1`` (or ``feats.mul_(2)``): a part of a tensor
                        # passed there, or the item at that key of the dict or list passed
                        state["!keyed_items_written"] = state.get("!keyed_items_written", EMPTY) | {
                            (index, key) for key in keys}
                    if not replaces_item:  # a whole write: through an item at a key, or of all it holds
                        key = "!writes_keyed" if keys else "!writes_unkeyed"
                        state[key] = state.get(key, EMPTY) | {index}
                    state[WRITTEN_THROUGH] = state.get(WRITTEN_THROUGH, EMPTY) | {
                        (index, value.made | _written_name(target, state).made)}
            if not value.pinned:  # (as for ``writes_held``: a pinned buffer's syncs are not in a summary)
                self.attribute_written(target, state, replaces_item, value)

    def keyed_write_of_parameters(self, passed: Value, path: str, state: dict) -> None:
        """In a summary, a callee's write of the item at ``path`` of what one of this function's
        parameters holds (``forward_batch(batch)`` calling ``mark_mask(batch)``, or passing
        ``batch["inputs"]``): this function writes that item of what its callers pass."""
        prefixes = [fact[len(WITHIN_PASSED):] for fact in passed.facts if fact.startswith(WITHIN_PASSED)] or [""]
        for storage in passed.storages:
            index = parameter_index(storage, self.function.name)
            if index is not None:
                state["!keyed_items_written"] = state.get("!keyed_items_written", EMPTY) | {
                    (index, prefix + KEY_STEP + path if prefix else path) for prefix in prefixes}
                for key in ("!writes", "!writes_keyed"):  # (where a caller passes a tensor: a part of it)
                    state[key] = state.get(key, EMPTY) | {index}

    def attribute_written(self, target, state: dict, only_of_arrays: bool, written: Optional[Value] = None) -> None:
        """In a summary, a write of an attribute of an object a caller passes (``s.image``,
        ``self.ref``); ``only_of_arrays``: a write only where the caller's attribute holds a tensor
        or an array (``s.image[m] = 0``, ``s.image += 1`` of what is unknown here)."""
        path = self.parameter_attribute(place_of(target), state)
        node = self.function.node
        if path is not None and written is not None and all(
                allocated_in(storage, (node.lineno, node.end_lineno)) for storage in written.storages):
            return  # ``s.image = s.image.copy(); s.image -= m``: the helper writes its own copy
        paths = {path} if path is not None else set()
        if written is not None:  # ``px = frame.pixels; px += 1``: what it writes is the caller's attribute
            paths |= {found for found in map(self.parameter_attribute_held, written.storages) if found is not None}
        if paths:
            state["!attribute_writes"] = state.get("!attribute_writes", EMPTY) | {
                found + (only_of_arrays,) for found in paths}

    def parameter_attribute_held(self, storage) -> Optional[tuple]:
        """(parameter index, attribute path) of an ``("attribute", ("param", i, f), name)`` storage
        (nested: ``frame.meta.pixels``), else None."""
        names = []
        while type(storage) is tuple and len(storage) == 3 and storage[0] == "attribute":
            names.append(storage[2])
            storage = storage[1]
        index = parameter_index(storage, self.function.name) if names else None
        return None if index is None else (index, ".".join(reversed(names)))

    def parameter_place_written(self, place: str, state: dict, only_of_arrays: bool) -> None:
        """A callee's write of ``place`` (``frame.pixels``), an attribute of a parameter: this
        function's summary writes it too."""
        path = self.parameter_attribute(place, state)
        if path is not None:
            state["!attribute_writes"] = state.get("!attribute_writes", EMPTY) | {path + (only_of_arrays,)}

    def parameter_attribute(self, place: Optional[str], state: dict) -> Optional[tuple]:
        """(parameter index, attribute path) for a place naming an attribute of a parameter that
        still holds what its caller passed (``s.image``, ``self.ref``), else None."""
        if place is None or "." not in place or "[" in place:
            return None
        root, path = place.split(".", 1)
        held = state.get(root)
        if type(held) is not Value or len(held.storages) != 1:
            return None
        index = parameter_index(next(iter(held.storages)), self.function.name)
        return None if index is None else (index, path)

    def host_read(self, node, value: Value, state: dict, how: str, items: bool = False, sure: bool = False,
                  part: frozenset = EMPTY) -> None:
        """A tensor's values read on the host (what a copy still in flight spoils); with
        ``items``, a container's tensors are read too (``torch.cat(parts)``); ``sure``: only
        a tensor for sure, not one by a use a module shares (``print(m)`` prints modules too)."""
        if items and value.items is not None and not value.is_tensor:
            value = value.all_items() or UNKNOWN
        if not (value.is_tensor or self.summary_mode and value.kind_from):
            return
        if sure and value.evidence("kind") in (None, Evidence.USE):
            return
        if self.recording:
            self.record("read", node, place_of(node), value, state, value_read=how, part=part)
        if self.summary_mode and part != METADATA:
            # ``self.state`` that ``__init__`` made: what a call of this function reads (``env.reward()``)
            held = made_elsewhere(value.storages, self.function.node)
            if held:
                state["!reads_held"] = state.get("!reads_held", EMPTY) | held
                node = self.function.node  # the aliases kept elsewhere it reads through, not those each call makes anew
                kept = frozenset(made for made in value.made if not node.lineno <= made[0] <= node.end_lineno)
                if kept:
                    state["!reads_held_made"] = state.get("!reads_held_made", EMPTY) | kept
        if self.summary_mode and ENTRY in state.get(IN_FLIGHT, EMPTY):  # read before any sync in here
            read = {parameter_index(storage, self.function.name) for storage in value.storages}
            read.discard(None)
            if read:
                state["!reads"] = state.get("!reads", EMPTY) | read

    def start_copy(self, node, source: Value, to_host: bool, state: dict) -> frozenset:
        """An asynchronous copy begins at ``node``: in flight until a sync that covers it."""
        copy = _site(node)
        state[IN_FLIGHT] = state.get(IN_FLIGHT, EMPTY) | {copy}
        self.record("copy-start", node, None, source, state, copy=copy, to_host=to_host, source=source)
        return frozenset((copy,))

    # ----- expressions
    def evaluate(self, node, state: dict) -> Value:
        handler = _EXPRESSIONS.get(type(node))
        value = handler(self, node, state) if handler is not None else self.evaluate_children(node, state)
        return self.operation_result(node, value, state) if type(node) in _OPERATIONS else value

    def operation_result(self, node, value: Value, state: dict) -> Value:
        """What holds of any operation's result: 0-d (``ZERO_DIM``) as the knowledge says, a
        loss's grad, and nothing recorded with grad disabled."""
        if value.is_tensor and self.zero_dim(node, state):
            value = value._replace(facts=value.facts | {ZERO_DIM})
            self.zero_dim_nodes.add(id(node))
        else:
            self.zero_dim_nodes.discard(id(node))
            if value.is_tensor and self.one_dim(node):
                value = value._replace(facts=value.facts | {ONE_DIM})
        if value.is_tensor and value.fresh and type(node) is ast.Call and layout.decode(value.facts) is None:
            sizes = self.spelled_sizes(node, state)
            if sizes is not None:
                value = value._replace(facts=value.facts | {layout.encode(layout.contiguous(sizes))})
        if value.fresh:
            self.fresh_nodes.add(id(node))
        else:
            self.fresh_nodes.discard(id(node))
        if value.is_tensor and type(node) is ast.Call:
            value = self.loss_result(node, value)
        if value.fresh and value.storages & state.get(SAVED, EMPTY):  # new memory of a site saved before
            renew_saved(value.storages & state[SAVED] - self.saved_outputs, state)
        if state.get(NO_GRAD):
            return _made_without_grad(value)
        return value
    def loss_result(self, node: ast.Call, value: Value) -> Value:
        """A loss (``F.mse_loss``, role ``loss``) is computed to be backpropagated: it may
        require grad whatever its inputs are known to be."""
        roles = k.role_of("function", self.model.qualify(place_of(node.func) or ""))
        if "loss" in roles and not value.grad:
            return value._replace(grad=True, graph=True, why=value.why + _why(Evidence.LOSS, "grad"))
        return value

    def zero_dim(self, node, state: dict) -> bool:
        """A full reduction with no dim (``x.sum()``, ``torch.amax(x)``, ``F.mse_loss(a, b)``), a
        shape-keeping method of a 0-d tensor, ``torch.tensor(number)``, arithmetic of 0-d
        tensors and numbers."""
        if type(node) is ast.BinOp:
            sides = [self.zero_dim_operand(side, state) for side in (node.left, node.right)]
            return all(sides) and "0-d" in sides
        if type(node) is not ast.Call:
            return False
        qual = self.model.qualify(place_of(node.func) or "")
        roles = k.role_of("function", qual)
        if "full_reduction" in roles:
            if qual.startswith("torch.nn.functional."):
                reduction = _keyword(node, "reduction")
                return reduction is None or _constant(reduction) in ("mean", "sum")
            return len(node.args) == 1 and all(keyword.arg == "dtype" for keyword in node.keywords)
        if "constructs" in roles:
            return len(node.args) == 1 and type(_constant(node.args[0])) in (int, float)
        if type(node.func) is not ast.Attribute:
            return False
        roles = k.role_of("method", node.func.attr)
        if "full_reduction" in roles:
            return not node.args and all(keyword.arg == "dtype" for keyword in node.keywords)
        return "keeps_shape" in roles and self.zero_dim_operand(node.func.value, state) == "0-d"

    def spelled_sizes(self, node: ast.Call, state: dict) -> Optional[tuple]:
        """The sizes a factory is given, each known (``torch.rand(2, 3, 4, 4)``, ``torch.zeros((n, 4))``
        with ``n`` a size of a tensor of known sizes), or the nesting of literal lists
        ``torch.tensor`` copies; None otherwise, or where ``memory_format=`` lays it out another way."""
        if any(keyword.arg in ("memory_format", "out") for keyword in node.keywords):
            return None
        qual = self.model.qualify(place_of(node.func) or "")
        if qual in k.FACTORIES_OF_SIZES:
            spelled = node.args[:1] if k.FACTORIES_OF_SIZES[qual] else node.args
            if len(spelled) == 1 and type(spelled[0]) in (ast.Tuple, ast.List):
                spelled = spelled[0].elts
            sizes = tuple(self.size_argument(argument, state) for argument in spelled)
            return sizes if spelled and all(type(size) is int and size >= 0 for size in sizes) else None
        if "constructs" in k.role_of("function", qual) and node.args:
            return _nested_sizes(node.args[0])
        if qual in k.RANGES_OF_SIZES:  # ``torch.arange(6.0)``, ``torch.arange(1, 10, 2)``
            bounds = [_constant(argument) for argument in node.args]
            if 1 <= len(bounds) <= 3 and all(type(bound) in (int, float) for bound in bounds):
                start, end, step = ([0] + bounds + [1])[:3] if len(bounds) == 1 else (bounds + [1])[:3]
                length = layout.arange_length(start, end, step)
                return (length,) if length is not None else None
        return None

    def size_argument(self, node, state: dict):
        """A size spelled in the code: an int literal, a size of a tensor whose sizes are known
        (``x.size(1)``, ``x.shape[1]``), or in a summary a size of a parameter as passed or of
        what its steps made of it (``("size", 0, 1)``, known at each call); None otherwise."""
        literal = _integer(node)
        if literal is not None:
            return literal
        if type(node) is ast.Name:  # ``h`` of ``b, c, h, w = x.shape``
            held = state.get(node.id)
            return layout.named_size(held.facts) if type(held) is Value else None
        if type(node) is ast.BinOp and type(node.op) in layout.SIZE_ARITHMETIC:  # ``h * w``
            return layout.size_arithmetic(type(node.op), self.size_argument(node.left, state),
                                          self.size_argument(node.right, state))
        if type(node) is ast.Call and type(node.func) is ast.Attribute and node.func.attr == "size" \
                and len(node.args) == 1 and not node.keywords:
            base, dim = node.func.value, _integer(node.args[0])
        elif type(node) is ast.Subscript and type(node.value) is ast.Attribute and node.value.attr == "shape":
            base, dim = node.value.value, _integer(node.slice)
        else:
            return None
        value = state.get(place_of(base)) if dim is not None and place_of(base) is not None else None
        if value is None:
            return None
        known = layout.decode(value.facts)
        if known is not None:
            return known[0][dim] if -len(known[0]) <= dim < len(known[0]) else None
        indices = {parameter_index(storage, self.function.name) for storage in value.storages} - {None}
        steps = layout.program(value.facts) if self.summary_mode else None
        if steps is None or len(indices) != 1:
            return None
        # of a local the parameter became (``x = x.transpose(1, 3)``): its size after those steps
        return ("size", indices.pop(), dim) + ((steps,) if steps else ())

    def layout_step(self, method: str, node: ast.Call, state: dict) -> Optional[tuple]:
        """The step a method takes on a layout, with its arguments known (``("permute", (0, 2, 3, 1))``)."""
        arguments = node.args
        if method in ("permute", "reshape", "view") and len(arguments) == 1 and type(arguments[0]) in (ast.Tuple, ast.List):
            arguments = arguments[0].elts
        if method == "flatten":
            start, end = _keyword(node, "start_dim"), _keyword(node, "end_dim")
            arguments = [start or (node.args[0] if node.args else ast.Constant(0)),
                         end or (node.args[1] if len(node.args) > 1 else ast.Constant(-1))]
        elif node.keywords:
            return None
        sizes = tuple(self.size_argument(argument, state) for argument in arguments)
        if None in sizes:
            return None
        if method == "permute" and sizes:
            return ("permute", sizes)
        if method in ("transpose", "swapaxes", "swapdims") and len(sizes) == 2:
            return ("transpose",) + sizes
        if method in ("t", "contiguous") and not sizes:
            return (method,)
        if method == "unsqueeze" and len(sizes) == 1:
            return ("unsqueeze",) + sizes
        if method in ("reshape", "view") and sizes:
            return (method, sizes)
        if method == "flatten":
            return ("flatten",) + sizes
        return None

    def relaid(self, receiver: Value, operation: Optional[tuple]) -> Tuple[frozenset, bool]:
        """The layout fact of what ``operation`` (``layout_step``) makes of ``receiver`` and
        whether it copied (``reshape()`` where no view has the sizes asked for, ``contiguous()``
        of a permuted tensor); in a summary, the step appended to what a parameter as passed
        went through."""
        if operation is None or not receiver.facts:
            return EMPTY, False
        known = layout.decode(receiver.facts)
        if known is not None and not layout.symbolic(operation):
            after, copied = layout.step(known, operation)
            return (frozenset((layout.encode(after),)) if after is not None else EMPTY), copied
        steps = layout.program(receiver.facts) if self.summary_mode else None
        # (of one parameter; after ``contiguous()`` also of its own new memory, where it copies)
        indices = {parameter_index(storage, self.function.name) for storage in receiver.storages} - {None}
        if steps is None or len(indices) != 1 or not layout.symbolic(operation) <= indices:
            return EMPTY, False
        return frozenset((layout.RELAYOUT + repr(steps + (operation,)),)), False

    def one_dim(self, node) -> bool:
        """A result of one dimension (role ``one_dim``): ``torch.arange(n)``, ``w.unique()`` with no
        ``dim``, ``w.flatten()`` with no argument; ``torch.tensor([1, 2])`` of numbers spelled in a list."""
        if type(node) is not ast.Call:
            return False
        qual = self.model.qualify(place_of(node.func) or "")
        if qual.startswith("torch."):
            roles = k.role_of("function", qual)
        elif type(node.func) is ast.Attribute:
            roles = k.role_of("method", node.func.attr)
        else:
            return False
        if "constructs" in roles:
            data = node.args[0] if node.args else None
            return type(data) is ast.List and bool(data.elts) and all(
                type(_constant(item)) in (int, float) for item in data.elts)
        return "one_dim" in roles or "one_dim_alone" in roles and not node.args and not node.keywords

    def zero_dim_operand(self, node, state: dict):
        """"0-d", "number" or None (neither, or not known)."""
        if type(node) is ast.Constant and type(node.value) in (int, float):
            return "number"
        if type(node) is ast.Name:
            value = state.get(node.id)
            return "0-d" if value is not None and ZERO_DIM in value.facts else None
        return "0-d" if id(node) in self.zero_dim_nodes else None

    def evaluate_children(self, node, state) -> Value:
        for child in children(node):
            if isinstance(child, ast.expr):
                self.evaluate(child, state)
        return UNKNOWN

    def name(self, node: ast.Name, state) -> Value:
        value = state.get(node.id)
        local = value is not None
        if value is None:
            value = self.model.outer_value(self.function, node.id)
            if value is None:
                return Value(kinds("?"), qual="builtins." + node.id) if node.id in _BUILTINS else UNKNOWN
        if value.is_tensor and self.model.rebound_elsewhere(self.function, node.id, local):
            value = value._replace(why=(("kind", Evidence.REBOUND),) + tuple(
                pair for pair in value.why if pair[0] != "kind"))
        if value.storages and self.recording:
            self.record("read", node, node.id, value, state, part=self.part_read(node))
        return value._replace(fresh=False) if value.fresh else value

    def attribute(self, node: ast.Attribute, state) -> Value:
        place = place_of(node)
        value = state.get(place) if place is not None else None
        if value is not None:
            if value.storages:
                self.record("read", node, place, value, state, part=self.part_read(node))
            return value._replace(fresh=False) if value.fresh else value
        outer = self.metadata_of
        if "integer" in k.role_of("attribute", node.attr) | k.role_of("method", node.attr):
            self.metadata_of = node.value  # ``x.shape``, ``x.size()``: no value of ``x`` is read
        base = self.evaluate(node.value, state)
        self.metadata_of = outer
        value = self.attribute_of(base, node.attr, node, state)
        value = value._replace(fresh=False) if value.fresh else value  # the object holds it
        if value.storages and base.items and self.recording and _named_field(base, node.attr) is not None:
            # ``batch.targets``: a read of that field, not of the tuple's other items
            self.record("read", node, place_of(node), value, state, field=True)
        elif value.storages and self.recording and not self.summary_mode and (value.is_tensor or "ndarray" in value.kinds) \
                and any(kind.startswith("object:") for kind in base.kinds) and all(
                    type(storage) is tuple and storage[:1] == ("attribute",) for storage in value.storages):
            # ``store.images``: memory an object of the file's classes allocated for itself is read
            self.record("read", node, place_of(node), value, state, part=self.part_read(node))
        if value.pending and not self.summary_mode:
            self.left_by_earlier_calls(base, value, state)
        return self.tensor_attribute(node, base, value, state)

    def held_by_a_parameter(self, value: Value) -> bool:
        """In a summary, whether ``value`` is something a parameter holds (an item of an optimizer's
        groups a caller passes), or what the object was handed (an item of ``self.params =
        list(params)``): each call site's argument, or construction, decides what it is."""
        return self.summary_mode and bool(value.storages) and all(
            parameter_holding(storage, self.function.name) is not None or _handed_root(storage)
            for storage in value.storages)

    def left_by_earlier_calls(self, base: Value, value: Value, state) -> None:
        """An object's attribute (``self.buf``) filled by a copy that a method left in flight:
        before any sync of this call (``ENTRY``), that copy may still run, so it is in flight from
        this read on until a sync covers it."""
        in_flight = state.get(IN_FLIGHT, EMPTY)
        if ENTRY not in in_flight or getattr(self.function.node, "name", "") == "__init__":
            return
        left = frozenset().union(*(self.model.copies_left_in_flight(kind[7:])
                                   for kind in base.kinds if kind.startswith("object:")))
        if value.pending & left:
            state[IN_FLIGHT] = in_flight | (value.pending & left)

    def tensor_attribute(self, node: ast.Attribute, base: Value, value: Value, state) -> Value:
        """A tensor's attribute read (``x.data``, ``x.grad``) as an ``attribute`` event; a
        detached alias (``x.data``) remembers where it was made, so that a write through it (or
        a comparison of it) names that spot."""
        if not base.is_tensor:
            return value
        if "detach" in k.role_of("attribute", node.attr) and base.grad:  # its gradient stops here: what
            # is computed from it carries the fact
            value = value._replace(facts=value.facts | {f"{DROPPED}{node.lineno}:{node.col_offset}"})
        self.record("attribute", node, place_of(node), value, state, base=base, attribute=node.attr, store=False)
        return value

    def carry_dropped(self, result: Value, operands, node, state) -> Value:
        """What is computed from a detached read of a tensor requiring grad carries its
        ``dropped@`` fact, up to the operation that puts it in a graph: a ``graph_mix`` event
        there (that graph gets no gradient for the detached tensor)."""
        dropped = frozenset(fact for operand in operands if operand is not None and operand.facts
                            for fact in operand.facts if fact.startswith(DROPPED))
        if not dropped:
            return result
        reached = frozenset().union(*(operand.storages for operand in operands if operand is not None and operand.grad))
        if result.graph:  # not where the gradient may reach the tensor through another operand (``p - p.data``)
            grads = [operand for operand in operands if operand is not None and operand.grad]
            if not state.get(NO_GRAD) and all(operand.storages for operand in grads) and not any(
                    operand.storages & reached for operand in operands if operand is not None and not operand.grad):
                self.record("graph_mix", node, None, result, state, dropped=dropped)
            return result
        return result._replace(facts=result.facts | dropped)

    def attribute_store(self, target: ast.Attribute, value: Value, state) -> None:
        """``x.data = v`` on a tensor: an ``attribute`` event. The base runs as it does at run
        time (``x[n.item()].data = v`` syncs), its reads recording nothing."""
        recording, self.recording = self.recording, False
        base = self.evaluate(target.value, state)
        self.recording = recording
        if "module" in value.kinds:  # ``model.fc = nn.Linear(...)``: a new layer, its parameters require grad
            thaw_holders(place_of(target), state)
        if target.attr == GRADIENT and self.summary_mode and value.kinds == NONE.kinds:
            state["!drops_grads"] = NONE  # ``p.grad = None``, as ``zero_grad()``: its caller's gradients are new after it
        if base.is_tensor:
            self.record("attribute", target, place_of(target), value, state, base=base, attribute=target.attr,
                        store=True)
            if target.attr == GRADIENT:  # ``p.grad = None``: the gradient held so far is p's no more
                drop_gradients(held_gradients(state, self.gradient_bases(target, base, state)), target, state)
            place = place_of(target.value)
            if target.attr == "data":  # ``x.data = v``: x takes v's sizes
                forget_layout(base.storages, state)
            if target.attr == "data" and place in state and dtype_facts(base):  # ``x.data = v``: x takes v's dtype
                state[place] = base._replace(facts=layout.without_layout(base.facts) - dtype_facts(base) | dtype_facts(value))

    def attribute_of(self, base: Value, name: str, node, state: Optional[dict] = None) -> Value:
        if base.qual and "pymodule" in base.kinds or base.qual.startswith("builtins."):
            if f"{base.qual}.{name}" in k.NUMERIC_CONSTANTS:  # ``numpy.pi``: a Python float
                return NUMBER
            return Value(kinds("pymodule"), qual=f"{base.qual}.{name}")
        if base.qual.startswith("class:") and "autograd_apply" in k.role_of("attribute", name) \
                and self.model.autograd_forward(base.qual[6:]) is not None:  # ``Scale.apply``, called or kept
            return Value(kinds("function"), qual="apply:" + base.qual[6:])
        field = _named_field(base, name)
        if field is not None:  # ``w.max(-1).values``
            return field
        found_in_classes = []
        for class_name in _classes_of(base):
            getter = self.model.property_of(class_name, name) if state is not None else None
            if getter is not None:  # ``tracker.position``: the getter runs
                summary = self.model.summary(getter)
                found_in_classes.append((summary.returns or NONE) if summary is not None and plain(summary) else
                                        self.apply(getter, [base], {}, node, state, place_of(node.value)))
                continue
            if not self.summary_mode:
                self.model.attributes_read(self.function, class_name)
            found = self.field_in_post_init(class_name, name) or self.model.instance_attribute(
                class_name, name) or self.declared_attribute(base, class_name, name)
            method = self.model.method_of(class_name, name)
            if found is not None and method is not None and method.receiver_offset and found.qual == "local:" + method.name:
                # ``self._scale`` not called here: a method bound to its object, which a later call passes first
                found_in_classes.append(found._replace(facts=found.facts | {BOUND_ARGUMENTS}, items=(("0", base),)))
            elif found is not None:
                found = self.stored_by_an_earlier_call(found)
                found_in_classes.append(_given_by_caller(base, name, _per_instance(
                    self.model.classes[class_name], base, name, found)))
        if found_in_classes:
            return join_all(found_in_classes)
        if "param_groups" in k.role_of("attribute", name) and (
                "optimizer" in base.kinds and base.items or self.summary_mode and base.kind_from and not base.items):
            # ``opt.param_groups``: dicts whose ``"params"`` hold the tensors it was built from; in a
            # summary, of an optimizer a caller passes, the tensors that one holds at each call
            held = base.all_items() if base.items else _filled_elsewhere(base, None)
            group = Value(kinds("dict"), items=(("'params'", Value(kinds("list"), items=(("*", held),))),
                                                ("*", UNKNOWN)))
            return Value(kinds("list"), items=(("*", group),))
        if name == GRADIENT and self.summary_mode and base.kinds == UNKNOWN.kinds and base.storages \
                and all(_within_what_was_handed(storage) for storage in base.storages):
            # ``self.model.weight.grad`` of the model the object was handed: only a tensor has a ``.grad``
            base = base._replace(kinds=TENSOR)
        if base.is_tensor or "?" in base.kinds and (base.kind_from or self.held_by_a_parameter(base)):
            roles = k.role_of("attribute", name)
            if "detach" in roles:
                # (in a summary, of what a caller passes: dropped at each call where it requires grad)
                dropped = frozenset(f"{DROPPED}?{index}@{node.lineno}:{node.col_offset}" for callee, index in
                                    base.grad_from if callee == self.function.name) if self.summary_mode else EMPTY
                detached = base._replace(grad=False, graph=False, fresh=False, items=None, grad_from=EMPTY,
                                         facts=base.facts | dropped | (UNVERSIONED if "unversioned" in roles else EMPTY))
                return self.aliased(node, _operand(node), detached, "detach", "." + name, state)
            if "integer" in roles:
                return INTEGER
            if name in k.ATTRIBUTES_RETURNING_TENSOR:
                storages = base.storages if name in k.VIEW_ATTRIBUTES else gradients_of(
                    self.gradient_bases(node, base, state), node) \
                    if name == GRADIENT and base.storages and not base.graph else frozenset((_site(node),))
                # (a non-leaf's retained ``.grad`` is replaced, ``grad + new``, at each backward: no object of its own)
                grad = base.grad and name != "grad"
                result = Value(TENSOR, grad=grad, graph=grad, storages=storages, device=base.device,
                               why=_why(Evidence.TENSOR_METHOD, "kind"),
                               grad_from=base.grad_from if name != "grad" else EMPTY, made=base.made,
                               facts=view_facts(roles, name, f".{name}") | (
                                   dtype_facts(base) if name == GRADIENT else EMPTY) | (
                                   self.relaid(base, _LAYOUT_ATTRIBUTES.get(name))[0]) | (  # a gradient has its tensor's dtype
                                   dropped_facts(base) if name in k.VIEW_ATTRIBUTES else EMPTY))  # ``w.data.T``: still detached
                if name in k.VIEW_ATTRIBUTES:
                    return self.aliased(node, _operand(node), result, "view", "." + name, state)
                return result._replace(made=EMPTY)
        if "distribution" in base.kinds and "reparameterized" in k.role_of("attribute", name):
            return self.drawn(base, True, node)
        if _is_array(base) and "array_view" in k.role_of("attribute", name):  # ``a.T``
            return self.aliased(node, node.value, base._replace(fresh=False, items=None), "array_view", "." + name, state)
        held = "module" in base.kinds and "?" not in base.kinds  # surely a module (a class of the file, too)
        if held and "module_buffer" in k.role_of("attribute", name):
            return self.module_buffer(base, name, node)
        if held and "module_parameter" in k.role_of("attribute", name):  # the module's tensors: its storages
            return Value(TENSOR, grad=FROZEN not in base.facts, storages=base.storages or frozenset((_site(node),)),
                         device=base.device, why=_why(Evidence.MODULE_CALL, "kind"),  # (none of a frozen one's requires it)
                         facts=dtype_facts(base))  # ``net.weight`` of a model cast with ``.half()``: float16
        if SUBMODULE in base.facts and "module_parameter" in k.role_of("attribute", name):
            # ``model.encoder.weight``: a layer's parameter, by its name (weak), its holder's storages
            return Value(TENSOR, grad=True, storages=base.storages or frozenset((_site(node),)),
                         why=_why(Evidence.SUBMODULE_PARAMETER, "kind"))
        by_name = self.attribute_by_name(base, name)
        if by_name is not None:
            return by_name
        if held and base.storages:  # ``model.encoder``: what a module holds under a name, maybe a layer
            return Value(kinds("?"), storages=frozenset(held_within("attribute", storage, name) for storage in base.storages),
                         facts=frozenset((SUBMODULE,)))
        return _attribute_of_parameter(base, name)

    def stored_by_an_earlier_call(self, stored: Value) -> Value:
        """What the class's methods store under a name, read where this call of the function
        has not bound it: memory the function allocates that is there (``pts = self.pts.copy()``
        handed to a method storing it) was made by an earlier call of the function, not by this
        one (recency: each allocation site's newest object is its own, the older ones are
        ``("earlier", site)``). Module-level code runs once: it has no earlier call."""
        node = self.function.node
        if self.function is self.model.module or not stored.storages:
            return stored
        lines = (node.lineno, node.end_lineno)
        earlier = {storage: ("earlier", storage) for storage in storages_held(stored) if allocated_in(storage, lines)}
        return _renamed(stored, earlier) if earlier else stored

    def declared_attribute(self, base: Value, class_name: str, name: str) -> Optional[Value]:
        """``voxels: torch.Tensor`` in a class body no method stores: what the instance holds
        there, an object of its own its holder (a parameter) reaches (``_attribute_of_parameter``)."""
        info = self.model.classes.get(class_name)
        annotation = next((statement.annotation for statement in getattr(info.node, "body", ())
                           if type(statement) is ast.AnnAssign and type(statement.target) is ast.Name
                           and statement.target.id == name), None) if info is not None else None
        if annotation is None:
            return None
        held = _attribute_of_parameter(base._replace(kinds=kinds("?")), name)
        return self.annotated(held, annotation) if held.storages else None

    def attribute_by_name(self, base: Value, name: str) -> Optional[Value]:
        """``layer.aux_loss`` of an unknown object where one class of the file, and only one,
        stores a graph tensor in ``self.aux_loss``: that, by weak evidence (duck typing); else None."""
        if base.kinds != UNKNOWN.kinds or base.kind_from:
            return None
        found = []
        for info in list(self.model.classes.values()):
            self.model.read_class(info)
            stored = info.attribute(name)
            if stored is not None:
                found.append(stored)
        if len(found) != 1 or not (found[0].is_tensor and found[0].graph):
            return None  # only a graph tensor kept on self (``self.aux_loss = ...`` in forward)
        return found[0]._replace(storages=EMPTY, fresh=False, why=_why(Evidence.ATTRIBUTE_NAME, "kind", "grad"))

    def part_read(self, node) -> frozenset:
        """The first-dimension positions of ``node`` read where it is indexed (``x[1]``), else empty;
        ``METADATA`` where only its metadata is read (``x.shape``, ``x.size()``)."""
        if self.metadata_of is node:
            return METADATA
        return self.indexed[1] if self.indexed is not None and self.indexed[0] is node else EMPTY

    def subscript(self, node: ast.Subscript, state) -> Value:
        self.indexed = (node.value, _part_indexed(node.slice, state, self.bound_again))
        base = self.evaluate(node.value, state)
        self.indexed = None
        index = self.evaluate(node.slice, state)
        getters = [found for class_name in _classes_of(base)
                   for found in [self.model.method_of(class_name, "__getitem__")] if found is not None]
        # ``ds[i]`` of a class of the file: its ``__getitem__`` (the items of an object built here are
        # the fields its constructor kept, not what indexing returns)
        if getters and (base.items is None or _has_fields(base)):
            return join_all([self.apply(found, [base, index], {}, node, state, place_of(node.value))
                             for found in getters])
        if base.items is not None:
            key = key_of(node.slice)
            joined = items_join(base)
            item = base.item(key) if key != "*" else _items_at(base, _one_of(index)) or joined
            if item is None and base.kinds == kinds("dict") and key != "*":
                item = UNKNOWN  # a key the file never stores: what the dict's other keys hold says nothing of it
            elif item is None and key[:1] in ("'", '"'):  # ``state["other"]`` of a mapping a caller passes
                item = Value(kinds("?"), storages=frozenset(held_within("item", storage, key) for storage in base.storages))
            elif item is None:  # a position the model does not follow (``xs[-1]``)
                item = joined
            elif joined is not None and "dict" not in base.kinds:  # a position may shift: as well known as every item
                item = item._replace(kinds=joined.kinds, why=joined.why)
            value = item._replace(fresh=False) if item is not None else _filled_elsewhere(base, place_of(node.value))  # the container holds it
            if value.storages:
                self.record("read", node, place_of(node), value, state)
            return value
        if base.is_tensor:
            self.host_read(node.value, base, state, "index", part=_part_indexed(node.slice, state, self.bound_again))
            advanced = _advanced_index(node.slice, index)
            storages = base.storages if not advanced else frozenset((_site(node),))
            item = base._replace(storages=storages, graph=base.grad, fresh=not base.storages & storages,
                                 items=None, facts=dtype_facts(base) | _repeated_part(base))  # and what it is a part of
            if advanced:
                return item._replace(made=EMPTY, facts=dtype_facts(base))
            item = self.picked_by_caller(item, index, node)
            view = self.aliased(node, node.value, item, "partial_view", "indexing", state)
            part = _part_indexed(node.slice, state, self.bound_again)
            if part:
                for made in view.made - item.made:
                    self.model.view_parts[made] = part
            return view
        if _is_array(base):  # an array's view is an alias no rule reports alone (numpy()/from_numpy() chains name it)
            item = self.picked_by_caller(array_item(node, base, index), index, node)
            return item if item.fresh else self.aliased(node, node.value, item, "array_view", "indexing", state)
        if base.kinds <= _NUMERIC:  # ``x.shape[-2]``: sizes are numbers
            return INTEGER
        picked = self.item_of_a_call(base, key_of(node.slice))
        if picked is not None:
            return picked
        if "module" in base.kinds and base.qual in _MODULE_SEQUENCES | {_MODULE_DICT} and base.items is None:
            return submodule(base)  # ``blocks[0]`` of a chain a caller passed: one of its layers
        if type(node.slice) is ast.Slice and base.kinds - NONE.kinds == UNKNOWN.kinds and base.storages \
                and not base.kind_from:
            # ``buf[:n]`` of a value of unknown kind: a part of it where it is a tensor (of a list, a new
            # list), never one item of a container
            view = self.aliased(node, node.value, Value(kinds("?"), storages=base.storages), "partial_view",
                                "indexing", state)
            part = _part_indexed(node.slice, state, self.bound_again)
            if part:
                for made in view.made:
                    self.model.view_parts[made] = part
            return view
        if base.storages and not base.kind_from and base.kinds <= PY_CONTAINERS | UNKNOWN.kinds:
            return self.held_item(node, base, state)  # ``batch["x"]`` of a dict a caller passes
        held = base.storages if base.kind_from else EMPTY
        if held and _advanced_index(node.slice, index):  # ``history[:, [0, -1]]``: a copy, whatever it indexes
            held = frozenset((_site(node),))
        item = self.picked_by_caller(Value(kinds("?"), kind_from=base.kind_from, grad_from=base.grad_from, storages=held,
                                           facts=_keys_within(base, node.slice) if held else EMPTY),
                                     index, node)
        if self.summary_mode and base.kind_from and _basic_index(node.slice):
            # ``state[:, -1]`` of a parameter: where a caller passes a tensor, the part returned is a view
            return self.aliased(node, node.value, item, "partial_view", "indexing", state)
        return item

    def item_of_a_call(self, result: Value, key: str) -> Optional[Value]:
        """In a summary, an item at a constant key of what calling a parameter returned
        (``action, log_prob = policy.act(obs)``, ``fn(x)[1]``): at each call site, that item of
        what the call of the object passed there returns (a ``called`` symbol with its keys)."""
        if not self.summary_mode or not result.called or result.items is not None or result.kind_from \
                or key == "*" or not result.kinds <= UNKNOWN.kinds:
            return None
        return Value(kinds("?"), storages=frozenset(held_within("item", storage, key) for storage in result.storages),
                     called=frozenset(symbol[:2] + ((symbol[2] if len(symbol) > 2 else ()) + (key,),)
                                      for symbol in result.called),
                     grad_from=result.grad_from)  # (none where the call ran under no_grad: the item is cut too)

    def picked_by_caller(self, part: Value, index: Value, node: ast.Subscript) -> Value:
        """In a summary, a part indexed by what one parameter holds (``self.obs[idx]``): each call
        site decides whether it is a view (an int, a slice) or a copy (an index array: ``PICKED_BY``)."""
        if not self.summary_mode or not index.kind_from or "?" not in index.kinds or part.fresh:
            return part
        indices = {i for callee, i in index.kind_from if callee == self.function.name}
        if len(indices) != 1 or type(node.slice) is ast.Tuple:
            return part
        site = ",".join(map(str, _site(node)))
        return part._replace(facts=part.facts | {f"{PICKED_BY}{indices.pop()}@{site}"})

    def held_item(self, node: ast.Subscript, container: Value, state) -> Value:
        """An item of a container whose items the model does not know (a parameter, filled by
        a caller): an object of its own the container holds, read as such."""
        item = _filled_elsewhere(container, place_of(node.value))
        self.record("read", node, place_of(node), item, state)
        return item

    def constant(self, node, state) -> Value:
        value = node.value
        if value is None:
            return NONE
        if type(value) is bool:
            return BOOL
        if type(value) is int:
            return INTEGER
        if type(value) is complex:
            return COMPLEX
        if type(value) is float:
            return NUMBER
        device = _device_of(node) if type(value) is str else EMPTY
        if value in ("cpu", "cuda"):  # the device's type itself, no index: ``dev == "cuda"`` tells it
            return STRING._replace(device=device, facts=frozenset((DEVICE_TYPE_NAMED,)))
        return STRING._replace(device=device) if device else STRING

    def sequence(self, node, state) -> Value:
        items, star = [], None
        for position, element in enumerate(node.elts):
            if type(element) is ast.Starred:
                value = self.element(self.evaluate(element.value, state))
                star = value if star is None else join(star, value)
            else:
                items.append((str(position), self.evaluate(element, state)))
        if star is not None:
            for _, value in items:
                star = join(star, value)
            items = [("*", star)]
        kind = {ast.Tuple: "tuple", ast.List: "list", ast.Set: "set"}[type(node)]
        return Value(kinds(kind), storages=frozenset((_site(node),)), fresh=True, items=tuple(items))

    def dictionary(self, node, state) -> Value:
        items = {}
        for key, value in zip(node.keys, node.values):
            value = self.evaluate(value, state)
            if key is None:  # ``**other``
                value = self.element(value)
                name = "*"
            else:
                self.evaluate(key, state)
                name = key_of(key)
            items[name] = join(items[name], value) if name in items else value
        return Value(kinds("dict"), storages=frozenset((_site(node),)), fresh=True, items=tuple(items.items()))

    def comprehension(self, node, state) -> Value:
        """One pass over its element; a second where the first wrote memory (``[f(v) for v in
        values]`` of a callable refilling its scratch buffer): a later pass writes what the
        elements of earlier ones hold, as a loop's next iteration does."""
        unrolled = self.unrolled(node, state)
        inner = dict(state)
        written_before = len(self.written)
        outermost = self.evaluate(node.generators[0].iter, inner)  # Python evaluates it once, before any pass
        element = self.comprehension_pass(node, inner, outermost)
        # a second pass where the first wrote memory other than the item it binds (``[encode(v) for v in
        # values]`` refilling ``encode.scratch``; not ``[centred_(t) for t in ts]``: the next pass binds another)
        items = frozenset().union(*(storages_held(inner[name]) for generator in node.generators
                                    for name in _target_names(generator.target) if type(inner.get(name)) is Value))
        written = frozenset().union(*self.written[written_before:])
        if self.recording and written - items:
            element = join(element, self.comprehension_pass(node, inner, outermost))
        kind = "dict" if type(node) is ast.DictComp else "list" if type(node) is not ast.GeneratorExp else "generator"
        if kind == "list" and self.naming is not None and self.naming[0] is node:
            # ``losses = [step(b) for b in batches]``: each pass appends its element to the list the name binds
            self.record("accumulate", node, self.naming[1], element, inner, old=Value(kinds("list")),
                        added=node.elt, comprehension=node)
        if IN_FLIGHT in inner:
            state[IN_FLIGHT] = inner[IN_FLIGHT]
        if inner.get(SAVED, EMPTY) != state.get(SAVED, EMPTY):  # what its operations saved for backward
            add_saved(inner[SAVED], state)
        if inner.get(FORWARDED, EMPTY) != state.get(FORWARDED, EMPTY):  # ``[m(x) for m in models]``
            state[FORWARDED] = state.get(FORWARDED, EMPTY) | inner[FORWARDED]
        for key in _SUMMARY_RECORDS:  # ``[t.div_(t.norm()) for t in tensors]`` writes the caller's items
            if inner.get(key, EMPTY) != state.get(key, EMPTY):
                state[key] = state.get(key, EMPTY) | inner[key]
        return Value(kinds(kind), storages=frozenset((_site(node),)), fresh=True,
                     items=unrolled if unrolled is not None else (("*", element),))

    def comprehension_pass(self, node, inner: dict, outermost: Value) -> Value:
        """A comprehension's element, its targets bound to an item of what each ``for`` iterates
        (the outermost iterable evaluated once, by the caller)."""
        for index, generator in enumerate(node.generators):
            iterated = outermost if index == 0 else self.evaluate(generator.iter, inner)
            self.assign(generator.target, self.element(iterated), inner, generator)
            for condition in generator.ifs:
                self.evaluate(condition, inner)
                self.narrow(condition, True, inner)
        if type(node) is ast.DictComp:
            self.evaluate(node.key, inner)
            return self.evaluate(node.value, inner)
        return self.evaluate(node.elt, inner)

    def unrolled(self, node, state) -> Optional[tuple]:
        """The items of ``[f(t) for t in (a, b)]`` over a literal tuple or list, one per element
        in order (``x, m = tuple(t[keep] for t in (x, m))`` keeps what each one is). Evaluated
        without recording: the events are those of the whole comprehension, one per node."""
        if type(node) is ast.DictComp or len(node.generators) != 1:
            return None
        generator = node.generators[0]
        elements = generator.iter.elts if type(generator.iter) in (ast.Tuple, ast.List) else None
        if generator.ifs or generator.is_async or not elements or len(elements) > _UNROLLED_AT_MOST \
                or any(type(element) is ast.Starred for element in elements):
            return None
        recording, self.recording = self.recording, False
        items = []
        for position, element in enumerate(elements):
            inner = dict(state)
            self.assign(generator.target, self.evaluate(element, inner), inner, generator)
            items.append((str(position), self.evaluate(node.elt, inner)))
        self.recording = recording
        return tuple(items)

    def lambda_(self, node, state) -> Value:
        info = self.model.function_of(node, self.function)
        self.set_closure(info, state)
        return self.with_captured(Value(kinds("function"), qual="local:" + info.name), info, state)

    def with_captured(self, function: Value, info, state: dict) -> Value:
        """A nested function or lambda that captures aliases of tensors or arrays (``ref =
        t.detach()``, then ``def drift(): ... ref``): it holds them (``CAPTURED`` items), so that a
        call of it where the enclosing function has returned it reads them. (A function of the
        module reads the module's names where it runs: it returns from no enclosing call.)"""
        if info.parent is None or info.parent is self.model.module:
            return function
        captured = tuple(sorted((name, state[name]) for name in _captured_values(info)
                                if type(state.get(name)) is Value and state[name].made and state[name].storages
                                and (state[name].is_tensor or "ndarray" in state[name].kinds)))
        return function._replace(items=captured, facts=function.facts | {CAPTURED}) if captured else function

    def set_closure(self, info, state: dict) -> None:
        """The enclosing state a nested function or lambda reads its outer names from; a
        summary setting it counts (``Model.changes``): a final solve it interrupts cannot keep
        its blocks' events (``solver.solve_recording``)."""
        if self.summary_mode:
            self.model.changes += 1
        info.closure = state

    def named(self, node, state) -> Value:
        value = self.evaluate(node.value, state)
        self.assign(node.target, value, state, node)
        return value

    def conditional(self, node, state) -> Value:
        """``a if test else b``: each branch evaluated where the test held or failed (only the one a
        steady flag of the object tested allows: ``x.add_(1) if self.inplace else x + 1``)."""
        self.evaluate(node.test, state)
        for truth, other in ((True, node.orelse), (False, node.body)):
            if self.impossible(node.test, truth, state):  # as for an ``if``: a steady flag, a surely-None name
                return self.evaluate(other, state)
        held, failed = dict(state), dict(state)
        self.narrow(node.test, True, held)
        self.narrow(node.test, False, failed)
        self.assume_name(node.test, True, held)
        self.assume_name(node.test, False, failed)
        chosen, other = self.evaluate(node.body, held), self.evaluate(node.orelse, failed)
        value = join(chosen, other)
        steady = self.steady_test(node.test, True, state)
        if steady is not None and chosen != other:  # ``x = pred if mask is None else ...``: a later test takes its branch's back
            self.conditioned = (value, steady[0]) + ((chosen, other) if steady[1] else (other, chosen))
        # pinned where it matters: ``b.pin_memory() if use_cuda else b``, the other branch runs with no
        # device in use, where no copy is asynchronous
        if chosen.pinned and self.runs_without_cuda(node.test, False, state) \
                or other.pinned and self.runs_without_cuda(node.test, True, state):
            value = value._replace(pinned=True)
        state.update(join_states(held, failed))
        return value

    def identity_test_of_parameters(self, node: ast.Compare, values, state: dict) -> None:
        """``a is b``, ``id(a) == id(b)`` in a summary, of what callers pass: each call site
        decides it on its own values (``same_buffer(w, w.detach())``), as ``apply`` records."""
        name = self.function.name
        if any(parameter_holding(storage, name) is not None for value in values for storage in value.storages):
            state[IDENTITY_TESTS] = state.get(IDENTITY_TESTS, EMPTY) | {(node, tuple(values))}

    def boolean(self, node, state) -> Value:
        return join_all([self.evaluate(operand, state) for operand in node.values])

    def compare(self, node, state) -> Value:
        outer = self.metadata_of
        looked_up = _looked_up_for_presence(node)
        if looked_up is not None:  # ``sd.get(k) is not None``: whether it has the key, no value of it
            self.metadata_of = looked_up
        values = [self.evaluate(node.left, state)] + [self.evaluate(item, state) for item in node.comparators]
        self.metadata_of = outer
        if len(node.ops) == 1 and _identity_test(node):
            self.record("compare", node, None, BOOL, state, operands=tuple(values))
            if self.summary_mode:  # (of ``id(a) == id(b)``, the values ``id()`` was given)
                self.identity_test_of_parameters(node, values if type(node.ops[0]) in (ast.Is, ast.IsNot) else [
                    self.evaluate(operand.args[0], state) for operand in (node.left, node.comparators[0])], state)
        if any(value.is_tensor for value in values) and not any(
            type(op) in (ast.Is, ast.IsNot, ast.In, ast.NotIn) for op in node.ops
        ):
            for operand, value in zip([node.left] + node.comparators, values):
                self.host_read(operand, value, state, "comparison")
            return Value(TENSOR, storages=frozenset((_site(node),)), fresh=True, why=_why(Evidence.TORCH_API, "kind"),
                         facts=_DTYPE_BOOL)
        return BOOL

    def unary(self, node, state) -> Value:
        operand = self.evaluate(node.operand, state)
        if type(node.op) is ast.Not:
            return BOOL
        if operand.kinds == INTEGER.kinds:  # ``-3``: an int (``torch.tensor([2, -3])`` is int64)
            return INTEGER
        return self.arithmetic(node.op, operand, operand, node, state)

    def binary(self, node, state) -> Value:
        left = self.evaluate(node.left, state)
        right = self.evaluate(node.right, state)
        self.host_read(node.left, left, state, "arithmetic")
        self.host_read(node.right, right, state, "arithmetic")
        return self.arithmetic(node.op, left, right, node, state)

    def arithmetic(self, op, left: Value, right: Value, node, state) -> Value:
        """``a <op> b``: a new tensor if either is one; the graph follows the operands' grad."""
        grad = left.grad or right.grad
        sequence = next((side.kinds for side in (left, right) if side.kinds in _SEQUENCE_ONLY), None)
        if type(op) is ast.Add and sequence is not None and not (left.kinds | right.kinds) & _ARRAY_KINDS:
            # ``(logits,) + outputs[2:]``: concatenation, the other side a sequence too (a tensor raises
            # TypeError; an array adds a list element-wise, ``[0.5, 0.5] + points``)
            items = [self.element(side) if side.kinds in _SEQUENCE_ONLY else UNKNOWN for side in (left, right)]
            return Value(sequence, storages=frozenset((_site(node),)), fresh=True, items=(("*", join(*items)),))
        if left.is_tensor or right.is_tensor:
            result = Value(
                TENSOR, grad=grad, graph=grad, storages=frozenset((_site(node),)), fresh=True,
                device=left.device | right.device, why=weakest_kind(_why(Evidence.TORCH_API, "kind"), left, right),
                grad_from=left.grad_from | right.grad_from,
                facts=_dtype_fact(_arithmetic_dtype(op, left, right)) | _elementwise_layout(left, right),
            )
            self.save(_OPERATOR_FUNCTIONS.get(type(op)), (left, right), result, state, node)
            return self.carry_dropped(result, (left, right), node, state)
        if _is_array(left) or _is_array(right):
            return new_array(node)._replace(facts=_dtype_fact(_array_arithmetic_dtype(left, right)))
        if left.kind_from or right.kind_from or left.called or right.called:
            # in a summary, of a parameter or of what calling one returns (``m(x) * 2``): each
            # call site's arguments decide its kind and grad; new memory either way, and what the
            # operator keeps for backward is what it keeps of tensors passed there (``w ** 2``: ``w``)
            result = Value(kinds("?"), storages=frozenset((_site(node),)), fresh=True,
                           kind_from=left.kind_from | right.kind_from, grad_from=left.grad_from | right.grad_from,
                           called=left.called | right.called)
            self.save(_OPERATOR_FUNCTIONS.get(type(op)), (left, right), result, state, node, own_gradients_only=True)
            return self.carry_dropped(result, (left, right), node, state)  # (``t.data * 0.99``: dropped where ``t`` requires grad)
        if left.items is not None and right.items is not None:  # list + list
            return Value(left.kinds | right.kinds, storages=frozenset((_site(node),)), fresh=True,
                         items=(("*", join(self.element(left), self.element(right))),))
        if left.kinds <= _NUMERIC and right.kinds <= _NUMERIC:
            return NUMBER
        return UNKNOWN

    def one_operation(self, run, arguments, keywords, node, state) -> Value:
        """What ``run`` computes where autograd records it as one operation (a custom ``Function``'s
        ``apply``, a checkpointed function): with grad off inside, what it saves kept only where an
        input may need a gradient, its output requiring grad where an input does."""
        given = [value for value in list(arguments) + list(keywords.values()) if value is not None]
        records = any(_may_need_grad(value) for value in given) and not state.get(NO_GRAD)
        if records:
            result = run()
        else:
            with _grad_off(state, "one_operation"):  # no input needs a gradient: nothing it saves is kept
                result = run()
        if not records or not result.is_tensor and "?" not in result.kinds:
            return result
        grad = any(value.grad for value in given)
        return result._replace(grad=grad, graph=grad, grad_from=frozenset().union(*(value.grad_from for value in given)))

    def saved_for_backward(self, given, operation: str, node, state) -> None:
        """The tensors ``given`` kept for a backward whatever the grad mode inside (a custom
        ``Function``'s forward runs with grad off): the caller's grad mode decides at the call."""
        kept = frozenset().union(*(value.storages for value in given if value.is_tensor or "?" in value.kinds))
        if kept and not state.get(INFERENCE):
            add_saved(kept, state)
            self.record("save", node, None, NONE, state, op=operation, what="input", storages=kept)

    def checkpointed(self, node: ast.Call, arguments, keywords, state) -> Value:
        """``checkpoint(f, x)``: reentrant (the default), ``f(x)`` recorded as one operation keeping
        ``x`` for its backward (which runs ``f`` again); with ``use_reentrant=False``, ``f(x)`` whose
        operations keep, version-checked, what they save (torch 2.13, measured)."""
        passed = {key: value for key, value in keywords.items() if key not in k.CHECKPOINT_OPTIONS}
        call = ast.copy_location(ast.Call(func=node.args[0], args=node.args[1:], keywords=[
            keyword for keyword in node.keywords if keyword.arg in passed]), node)
        if _constant(_keyword(node, "use_reentrant")) is False:  # its own operations keep what they save
            return self.call_value(arguments[0], arguments[1:], passed, call, state)

        def run() -> Value:
            with _grad_off(state, "checkpoint"):  # what the function saves inside is made again in backward
                result = self.call_value(arguments[0], arguments[1:], passed, call, state)
            if not state.get(NO_GRAD):
                self.saved_for_backward(arguments[1:], "torch.utils.checkpoint.checkpoint", node, state)
            return result
        return self.one_operation(run, arguments[1:], passed, node, state)

    def saved_if_grad(self, summary, instance: Instantiation, state: dict) -> frozenset:
        """What a call passes that the callee keeps for its own gradient (``w ** 2``): kept where it
        may need one (in a summary, where the caller's own parameter may: at its callers)."""
        kept = set()
        for index in summary.saved_if_grad:
            actual = instance.actual(index)
            if actual.grad:
                kept |= actual.storages
            elif self.summary_mode and actual.grad_from:
                passed = {parameter_index(storage, self.function.name) for storage in actual.storages} - {None}
                state[SAVED_IF_GRAD] = state.get(SAVED_IF_GRAD, EMPTY) | passed
        return frozenset(kept)

    def save(self, function: Optional[str], operands, result: Value, state, node=None, saved=None,
             own_gradients_only: bool = False) -> None:
        """What autograd keeps of an operation on grad tensors (the torch tables say which,
        unless ``saved`` does); nothing under ``torch.no_grad()``. ``own_gradients_only``: of
        what a summary's callers pass, only what it keeps for its own gradient (``w ** 2``), not
        for another operand's, which a call may pass without grad (``x @ w``)."""
        if saved is None:
            saved = k.SAVED_FOR_BACKWARD.get(function) if function else None
        if not saved or not (result.grad or result.grad_from) or not _kept_for_backward(state):
            return
        storages = set()
        for_other = k.SAVED_FOR_OTHER.get(function, {})
        for what in saved:
            if what == "output":
                kept = result.storages
                self.saved_outputs |= kept
            elif type(what) is int and what < len(operands) and operands[what] is not None:
                other = for_other.get(what)
                if other is not None and other < len(operands) and (not _may_need_grad(operands[other]) or (
                        own_gradients_only and not operands[other].grad)):
                    continue  # kept only for the other operand's gradient, which it has none of
                kept = operands[what].storages
            else:
                continue
            if own_gradients_only and self.summary_mode:
                # what a caller passes is kept for its own gradient only where it needs one (at each call)
                passed = {parameter_index(storage, self.function.name) for storage in kept} - {None}
                state[SAVED_IF_GRAD] = state.get(SAVED_IF_GRAD, EMPTY) | passed
                kept = frozenset(storage for storage in kept if parameter_index(storage, self.function.name) is None)
            storages |= kept
            if kept and node is not None:
                self.record("save", node, None, result, state, op=function, what="output" if what == "output" else "input",
                            storages=kept)
        if storages:
            add_saved(storages, state)

    def iterated(self, iterable, value: Value, state) -> Value:
        """What iterating ``value`` yields where the code iterates it (a loop, ``enumerate(x)``,
        ``zip(x, y)``): each row of a tensor is a view of it, a part as ``x[i]`` is."""
        value = self.iterator_of(value, iterable, state)
        if value.kinds == _DICT:
            return UNKNOWN  # ``for key in stats:`` visits its keys (``.values()`` and ``.items()`` its values)
        element = self.element(value)
        if value.is_tensor and "multi_output_view" in k.role_of("syntax", "iteration"):
            element = self.aliased(iterable, iterable, element, "partial_view", "iteration", state)
        return element

    def iterator_of(self, value: Value, node, state) -> Value:
        """An object of a class of the file with its own ``__iter__``: what that method returns
        (a generator's items) is what iterating the object yields (``list(loader)``)."""
        if not any(self.model.method_of(name, "__iter__") for name in _classes_of(value)):
            return value
        return self.method_call(value, "__iter__", node, [], {}, node, state)

    def element(self, value: Value) -> Value:
        """What iterating ``value`` yields."""
        if value.items is not None:  # an item the container still holds: no new object of the loop's
            found = items_join(value)
            return (found._replace(fresh=False) if found.fresh else found) if found is not None else UNKNOWN
        if value.is_tensor:  # a row, of the tensor's dtype; of a 1-d tensor a 0-d one
            return value._replace(items=None, fresh=False, facts=ITERATED | dtype_facts(value) | (
                {ZERO_DIM} if ONE_DIM in value.facts else EMPTY))
        if value.qual in _MODULE_SEQUENCES and "module" in value.kinds:  # ``for block in blocks``: its layers
            return submodule(value)
        if value.kinds == INTEGER.kinds:  # ``b, c, h, w = x.shape``: sizes are ints
            return INTEGER
        if self.summary_mode and value.kind_from:  # an item of what a caller passes: its items at a call site
            return _filled_elsewhere(value, None)
        return UNKNOWN

    # ----- narrowing
    def narrow(self, test, truth: bool, state: dict) -> None:
        """A condition that held (or failed) as a flow node: ``isinstance`` sets a kind,
        ``x.dtype != d`` proves that a later ``x.to(d)`` copies."""
        kind = type(test)
        if self.runs_without_cuda(test, truth, state):  # no device here: every copy was synchronous
            if IN_FLIGHT in state:
                state[IN_FLIGHT] = EMPTY
            state[WITHOUT_CUDA] = frozenset((True,))
        if self.narrow_none(test, truth, state) or self.narrow_module(test, truth, state) or \
                self.narrow_not_tensor(test, truth, state) or self.narrow_identity(test, truth, state):
            return
        if kind is ast.UnaryOp and type(test.op) is ast.Not:
            self.narrow(test.operand, not truth, state)
        elif kind is ast.BoolOp and (type(test.op) is ast.And) == truth:
            for value in test.values:
                self.narrow(value, truth, state)
        elif kind is ast.Call and type(test.func) is ast.Name and test.func.id == "isinstance" and truth:
            place = place_of(test.args[0]) if len(test.args) == 2 else None
            classes = test.args[1].elts if place is not None and type(test.args[1]) is ast.Tuple else (
                [test.args[1]] if place is not None else [])
            named = [_ISINSTANCE_KINDS.get(self.evaluate(checked, state).qual) for checked in classes]
            if named and all(named):  # ``isinstance(x, (list, tuple))``: one of those kinds
                old = state.get(place, UNKNOWN)
                proved = frozenset().union(*named)  # surely no tensor: what a caller passes decides nothing more
                self.narrowed(place, old._replace(kinds=proved, kind_from=old.kind_from if proved & TENSOR else EMPTY,
                                                  why=_why(Evidence.ISINSTANCE, "kind")), state)
        elif kind is ast.Name and self.narrow_named_test(test, truth, state):
            return
        elif kind is ast.Attribute and test.attr == "training" and not truth \
                and self.model.may_be_module(self.evaluate(test.value, state)):
            # ``if not self.training:``: the module's eval branch, inference where the function runs no backward
            inference_only(state) if not _runs_a_backward(self.model, self.function) else eval_branch(state)
        elif kind is ast.Attribute and test.attr == "requires_grad" and truth and place_of(test.value) in state \
                and type(state[place_of(test.value)]) is Value:
            # ``if loss.requires_grad:``: where it held, the tensor requires grad, whatever the model knew of it
            place = place_of(test.value)
            state[place] = state[place]._replace(grad=True)
        elif kind in (ast.Name, ast.Attribute) and not truth:  # ``if not self.done``: None (an event is truthy)
            self.event_absent(test, state)
        elif kind is ast.Call:
            self.narrow_floating(test, truth, state)
            self.narrow_pinned(test, truth, state)
            roles = k.role_of("function", self.evaluate(test.func, state).qual)
            if "grad_mode_test" in roles and not truth or "inference_mode_test" in roles and truth:
                inference_only(state, GRAD_OFF)  # ``if not torch.is_grad_enabled():``: grad mode is off there
        elif kind is ast.Compare and len(test.ops) == 1:
            differs = type(test.ops[0]) is ast.NotEq if truth else type(test.ops[0]) is ast.Eq
            left, right = test.left, test.comparators[0]
            if differs and not _dtype_or_device(left) and _dtype_or_device(right):
                left, right = right, left  # ``dtype != x.dtype`` is ``x.dtype != dtype``
            if differs and _dtype_or_device(left):
                place, other = place_of(left.value), place_of(right)
                if place is not None and other is not None and place not in state and type(left.value) is ast.Attribute:
                    recording, self.recording = self.recording, False  # ``self.pe.dtype``: the object's tensor, held here
                    held = self.evaluate(left.value, state)
                    self.recording = recording
                    if held.is_tensor and "[" not in place:
                        state[place] = held
                if place is not None and other is not None and place in state:
                    state[place] = state[place]._replace(facts=state[place].facts | {"!=:" + other})
            elif type(left) is ast.Attribute and left.attr == "dtype" and place_of(left.value) in state:
                self.narrow_dtype(place_of(left.value), test.ops[0], right, truth, state)

    def runs_without_cuda(self, test, truth: bool, state: dict) -> bool:
        """Whether the path where ``test`` held (``truth``) or failed runs with no CUDA device in
        use (``without_cuda``), the test written there or bound to a name before
        (``use_cuda = torch.cuda.is_available()`` ... ``if use_cuda:``)."""
        if type(test) is ast.Name:
            value = state.get(test.id)
            if value is None and test.id not in self.model.declared_global_anywhere():
                value = self.model.outer_value(self.function, test.id)  # (a module's ``cuda = torch.cuda.is_available()``)
            tested = self.model.named_tests.get(value.qual) if type(value) is Value and value.qual else None
            if tested is None:
                return False
            test = tested[0]
        return without_cuda(self.model, test, truth) and self.tests_the_device(test, state)

    def tests_the_device(self, test, state: dict) -> bool:
        """Whether a test of a device's type (``x.type == "cuda"``) tests the device the program runs on:
        ``x`` a device (``torch.device(...)``, a parameter annotated as one, a tensor's ``.device``), not
        another object's ``type``, nor the device of a tensor known to be on the host (``host.device``)."""
        if type(test) is ast.Attribute:  # ``x.is_cuda`` of a tensor not known to be on the host
            held = state.get(place_of(test.value) or "")
            return not (type(held) is Value and held.device == HOST)
        if type(test) is not ast.Compare:
            return True  # ``torch.cuda.is_available()``
        for side in (test.left, *test.comparators):
            if type(side) is ast.Name:  # ``dev == "cuda"``: a string naming the host or the GPU, no other
                if side.id in self.model.declared_global_anywhere():
                    return False  # (a function may bind it anew: ``global DEV; DEV = f"cuda:{rank}"``)
                held = state.get(side.id) or self.model.outer_value(self.function, side.id)
                return type(held) is Value and held.kinds == {"str"} and DEVICE_TYPE_NAMED in held.facts
            if type(side) is not ast.Attribute:
                continue
            base = side.value
            if type(base) is ast.Attribute and base.attr == "device":
                held = state.get(place_of(base.value) or "")
                return not (type(held) is Value and held.device == HOST)
            held = state.get(place_of(base) or "")
            if held is None and type(base) is ast.Name:  # a module's ``device = torch.device(...)``
                held = self.model.outer_value(self.function, base.id)
            return type(held) is Value and "device" in held.kinds
        return False

    def narrow_dtype(self, place: str, op, right, truth: bool, state: dict) -> None:
        """``x.dtype == torch.uint8`` held: that dtype; ``x.dtype in (torch.float16, torch.bfloat16)``
        held: one of them, failed: none of them (``!=`` likewise): a cast elsewhere copies."""
        listed = (state.get(right.id) or self.model.outer_value(self.function, right.id)) if type(right) is ast.Name \
            else None  # a local list, or one the module binds (``_LOW_PRECISION = (torch.float16, ...)``)
        if type(listed) is Value and listed.items and listed.kinds <= _SEQUENCE_KINDS \
                and all(key != "*" for key, _ in listed.items):
            named = [dtype_named(item.qual) for _, item in listed.items]  # ``valid = [torch.float32, ...]``
        else:
            named = [dtype_named(place_of(item) or "") for item in (
                right.elts if type(right) in (ast.Tuple, ast.List, ast.Set) else [right])]
        if not named or not all(named):
            return
        among = (type(op) in (ast.Eq, ast.In)) == truth
        if among and len(named) == 1:
            state[place] = with_dtype(state[place], named[0])
        elif type(op) in (ast.Eq, ast.NotEq, ast.In, ast.NotIn):
            state[place] = with_dtype_among(state[place], frozenset(named), among)

    def narrow_pinned(self, test: ast.Call, truth: bool, state: dict) -> None:
        """``x.is_pinned()`` held (``assert buf.is_pinned()``): a tensor in pinned host memory, so a
        ``non_blocking`` copy into or out of it may still run when the call returns; failed: not."""
        if type(test.func) is not ast.Attribute or test.func.attr != "is_pinned" or test.args or test.keywords:
            return
        place = place_of(test.func.value)
        if place is not None and place in state:
            held = state[place]
            state[place] = held._replace(pinned=truth, kinds=TENSOR if truth else held.kinds,
                                         why=_why(Evidence.USE, "kind") if truth and not held.is_tensor else held.why)

    def narrow_floating(self, test: ast.Call, truth: bool, state: dict) -> None:
        """``x.is_floating_point()`` (or ``torch.is_floating_point(x)``) held: a float dtype, failed:
        none (``.float()`` of it copies)."""
        subject = test.func.value if type(test.func) is ast.Attribute and not test.args else (
            test.args[0] if len(test.args) == 1 else None)
        if subject is None or getattr(test.func, "attr", None) != "is_floating_point":
            return
        if subject is not test.func.value and self.evaluate(test.func.value, state).qual != "torch":
            return
        place = place_of(subject)
        if place is not None and place in state:
            state[place] = with_dtype_among(state[place], k.FLOATING_DTYPES, truth)

    def narrow_named_test(self, test: ast.Name, truth: bool, state: dict) -> bool:
        """``fp = x.is_floating_point()`` ... ``if fp:``: the test bound to the name narrows as if
        written there, for the places it tests that were not rebound since."""
        value = state.get(test.id)
        tested = self.model.named_tests.get(value.qual) if value is not None and value.qual else None
        if tested is None:
            return False
        expression, subjects = tested
        scratch = dict(state)
        scratch.update(subjects)
        self.narrow(expression, truth, scratch)
        for place, then in subjects.items():
            if state.get(place) == then:
                state[place] = scratch[place]
        return True

    def named_test(self, expression, state: dict) -> Optional[Value]:
        """A test bound to a name (``need_cast = not x.is_floating_point()``), remembered with
        the values of the places it tests, for ``narrow_named_test``."""
        tested = _tested_places(expression)
        subjects = {place: state[place] for place in tested or () if place in state}
        if not subjects and not (without_cuda(self.model, expression, True) or without_cuda(self.model, expression, False)):
            return None  # (a test of the device tests no place: ``use_cuda = torch.cuda.is_available()``)
        key = "test:%d:%d" % _site(expression)
        self.model.named_tests[key] = (expression, subjects)
        return BOOL._replace(qual=key)

    def narrowed(self, place: str, value: Value, state: dict) -> None:
        """What narrowing proved of a place: an item (``labels[k]``) goes into its container, which
        stays what it is."""
        if "[" in place:
            self.bind_place(place, value, state)
        else:
            state[place] = value

    def narrow_none(self, test, truth: bool, state: dict) -> bool:
        """``x is not None`` held (or ``x is None`` failed): ``x`` is not None there; where it is
        None, an event place is absent (``event_absent``)."""
        if type(test) is not ast.Compare or len(test.ops) != 1 or _constant(test.comparators[0]) is not None \
                or type(test.comparators[0]) is not ast.Constant or type(test.ops[0]) not in (ast.Is, ast.IsNot):
            return False
        place = place_of(test.left)
        if (type(test.ops[0]) is ast.IsNot) != truth:
            self.event_absent(test.left, state)
        elif place is not None and place in state:
            state[place] = without_none(state[place])
        return True

    def narrow_identity(self, test, truth: bool, state: dict) -> bool:
        """``y is x`` failed (or ``y is not x`` held; so ``y.data_ptr() != x.data_ptr()``) where
        ``y`` is a move of ``x`` (``x.to(d)``, ``x.float()``): a move hands back the tensor
        itself or a copy, so there ``y`` is a copy."""
        compared = _identity_compared(test)
        if compared is None:
            return False
        left, right, same = compared
        if same == truth:
            return False
        narrowed = False
        for moved, source in ((left, right), (right, left)):
            place, other = place_of(moved), place_of(source)
            value, held = state.get(place), state.get(other)
            if type(value) is not Value or type(held) is not Value or not held.storages:
                continue
            moves = frozenset(made for made in value.made if made[2] == "move"  # a move of ``source`` itself
                              and self.model.alias_makers.get(made, (None, None, None))[2] == other)
            if moves and held.storages < value.storages:
                # the copy's own memory, still the move's result: a write there goes through ``y``, not ``x``
                state[place] = value._replace(storages=value.storages - held.storages)
                narrowed = True
        return narrowed

    def event_absent(self, node, state: dict) -> None:
        """On a path where ``self.<attr>``, the place that holds the event covering this class's
        copies, is None, none of them was made yet: neither the copies it covers nor those in
        flight at the call (``ENTRY``: the class's own ones are covered) are in flight."""
        place = place_of(node)
        receiver = self.function.names[0] + "." if getattr(self.function, "receiver_offset", 0) else None
        if place is None or not receiver or not place.startswith(receiver) or "." in place[len(receiver):]:
            return
        recording, self.recording = self.recording, False
        value = self.evaluate(node, state)  # already evaluated (and recorded) by the test
        self.recording = recording
        if "event" in value.kinds and value.pending and self.model.event_guards_copies(
                self.function.owner, place[len(receiver):]):
            state[IN_FLIGHT] = state.get(IN_FLIGHT, EMPTY) - value.pending - {ENTRY}

    def narrow_module(self, test, truth: bool, state: dict) -> bool:
        """``isinstance(m, nn.BatchNorm2d)`` held: ``m`` is a module there."""
        if not truth or type(test) is not ast.Call or type(test.func) is not ast.Name or test.func.id != "isinstance" \
                or len(test.args) != 2 or place_of(test.args[0]) is None:
            return False
        classes = test.args[1].elts if type(test.args[1]) is ast.Tuple else [test.args[1]]
        checked = [self.evaluate(item, state).qual for item in classes]
        if not checked or not all(qual.startswith("torch.nn.") and qual.split(".")[-1][:1].isupper()
                                  and qual != "torch.nn.Parameter" for qual in checked):
            return False
        place = place_of(test.args[0])
        old = state.get(place, UNKNOWN)
        self.narrowed(place, old._replace(kinds=MODULE, why=_why(Evidence.ISINSTANCE, "kind")), state)
        return True

    def module_buffer(self, module: Value, name: str, node) -> Value:
        """``bn.running_mean``: a buffer the module holds (it does not require grad); its
        storage is the module's attribute, the same at every read (and what a caller passes
        for a module parameter's)."""
        storages = frozenset(held_within("attribute", storage, name) for storage in module.storages) or frozenset(
            (_site(node),))
        known = module.evidence("kind")  # a module known by weak evidence only holds tensors by as weak
        return Value(TENSOR, storages=storages, device=module.device,
                     why=module.why if known is not None and not known.strong else _why(Evidence.MODULE_CALL, "kind"))

    def narrow_not_tensor(self, test, truth: bool, state: dict) -> bool:
        """``isinstance(x, torch.Size)`` held, or ``isinstance(x, torch.Tensor)`` (``torch.is_tensor(x)``)
        failed: ``x`` is not a tensor there."""
        if type(test) is ast.Call and len(test.args) == 1 and place_of(test.args[0]) is not None \
                and self.evaluate(test.func, state).qual == "torch.is_tensor":
            if truth:
                place = place_of(test.args[0])
                old = state.get(place, UNKNOWN)
                self.narrowed(place, old._replace(kinds=TENSOR, why=_why(Evidence.ISINSTANCE, "kind")), state)
                return True
            tensor = True
        elif type(test) is not ast.Call or type(test.func) is not ast.Name or test.func.id != "isinstance" \
                or len(test.args) != 2 or place_of(test.args[0]) is None:
            return False
        else:
            classes = test.args[1].elts if type(test.args[1]) is ast.Tuple else [test.args[1]]
            checked = [self.evaluate(item, state).qual for item in classes]
            tensor = any(qual in ("torch.Tensor", "torch.nn.Parameter") for qual in checked)
            if not all(checked):
                return False
        if truth == tensor:
            return False
        place = place_of(test.args[0])
        old = state.get(place, UNKNOWN)
        named = [_ISINSTANCE_KINDS.get(qual) for qual in checked] if truth else []
        if named and all(named):  # ``isinstance(x, dict)`` held: a dict
            self.narrowed(place, old._replace(kinds=frozenset().union(*named), why=_why(Evidence.ISINSTANCE, "kind"),
                                              grad=False, graph=False, kind_from=EMPTY), state)
            return True
        # surely no tensor, whatever a caller passes (its kind no longer decides this one's)
        self.narrowed(place, old._replace(kinds=(old.kinds - TENSOR) or kinds("?"), why=(), grad=False, graph=False,
                                          kind_from=EMPTY), state)
        return True

    def annotated(self, value: Value, annotation) -> Value:
        text = place_of(annotation) or ""
        if text.split(".")[-1] == "Tensor" and "?" in value.kinds:
            return value._replace(kinds=value.kinds - {"?"} | TENSOR, why=_why(Evidence.ANNOTATION, "kind"))
        if self.model.qualify(text) == "numpy.ndarray" and "?" in value.kinds:
            return value._replace(kinds=value.kinds - {"?"} | ARRAY, why=_why(Evidence.ANNOTATION, "kind"))
        return value

    # ----- calls
    def call(self, node: ast.Call, state) -> Value:
        func = node.func
        self.module_calls.discard(id(node))  # ``module_output`` marks it again where it runs
        if type(func) is ast.Attribute and place_of(func) in state:  # ``self.post(x)``: a value stored there
            callee = self.attribute(func, state)
        elif type(func) is ast.Attribute:
            outer = self.metadata_of
            if "integer" in k.role_of("method", func.attr):
                self.metadata_of = func.value  # ``x.size(-1)``: no value of ``x`` is read
            receiver = self.evaluate(func.value, state)
            self.metadata_of = outer
            method = func.attr
            if not ("pymodule" in receiver.kinds and receiver.qual):
                arguments, keywords = self.arguments(node, state)
                return self.method_call(receiver, method, func.value, arguments, keywords, node, state)
            callee = Value(kinds("pymodule"), qual=f"{receiver.qual}.{method}")
        else:
            callee = self.evaluate(func, state)
        arguments, keywords = self.arguments(node, state)
        if not _runs_forward(callee):  # (``meter(x)`` of an object of the file: its ``__call__`` on that object)
            result = self.call_value(callee, arguments, keywords, node, state,
                                     receiver_place=place_of(func) if _classes_of(callee) else None)
            if _site(node) in result.storages and FORWARDED in state and _runs_forward(result):
                state[FORWARDED] = state[FORWARDED] - {_site(node)}  # a new module from this site: not run yet
            if self.summary_mode and callee.kind_from:  # a parameter called: a module passed in ran its forward
                forwarded(callee, state)
            return result
        result = self.call_value(callee, arguments, keywords, node, state, receiver_place=place_of(func))
        self.ran_forward(callee, node, state)
        return result

    def arguments(self, node: ast.Call, state):
        arguments = [self.evaluate(argument, state) for argument in node.args]
        keywords = {keyword.arg: self.evaluate(keyword.value, state) for keyword in node.keywords}
        return arguments, keywords

    def call_value(self, callee: Value, arguments: List[Value], keywords: dict, node, state,
                   receiver_place: Optional[str] = None) -> Value:
        if BOUND_ARGUMENTS in callee.facts:  # ``functools.partial(f, a, k=v)(b)`` is ``f(a, b, k=v)``
            bound = dict(callee.items or ())
            arguments = [bound[str(index)] for index in range(sum(key.isdigit() for key in bound))] + list(arguments)
            keywords = {**{key[1:]: value for key, value in bound.items() if key[:1] == "="}, **keywords}
            callee = callee._replace(items=None, facts=callee.facts - {BOUND_ARGUMENTS})
        qual = callee.qual
        if CAPTURED in callee.facts and callee.items:
            self.captured_by_a_returned_function(callee, node, state)
        if qual.startswith("local:"):
            return self.apply(self.model.functions_by_name[qual[6:]], arguments, keywords, node, state,
                              receiver_place=receiver_place, environment=environment_of(callee), callee_value=callee)
        if qual.startswith("class:"):
            return self.instantiate_class(qual[6:], arguments, keywords, node, state)
        if qual.startswith("apply:"):  # ``Scale.apply(x, k)``: ``Scale.forward(ctx, x, k)``, recorded as one operation
            forward = self.model.autograd_forward(qual[6:])
            return self.one_operation(lambda: self.apply(forward, [UNKNOWN] + arguments, keywords, node, state),
                                      arguments, keywords, node, state)
        if qual.startswith("builtins."):
            return self.builtin(qual[9:], arguments, keywords, node, state)
        if not qual and not callee.items and any(fact.startswith(MAY_CALL) for fact in callee.facts):
            return self.call_candidates(callee, arguments, keywords, node, state, receiver_place)
        if "?" in callee.kinds and arguments and not self.summary_mode:
            self.called_parameter(callee)
        # (calling an object runs its ``__call__``; a module's, or an object's whose base the file
        # does not know, runs its ``forward``)
        forwards = [(forward, module or call is None) for class_name in _classes_of(callee)
                    for module in [self.model.class_is_module(self.model.classes[class_name])]
                    for call in [None if module else self.model.method_of(class_name, "__call__")]
                    for forward in [call or self.model.method_of(class_name, "forward")
                                    or self.model.method_of(class_name, "__call__")]
                    if forward is not None]
        if forwards:
            self.feeds_gradients(callee, state)
            # a module's output is new memory; a plain object's ``__call__`` hands back what it returns
            result = join_all([self.apply(forward, [callee] + arguments, keywords, node, state, receiver_place,
                                          module_call=module)
                               for forward, module in forwards])
            if FROZEN in callee.facts and result.is_tensor and not any(value.grad for value in arguments):
                result = result._replace(grad=False, graph=False, grad_from=EMPTY)  # no parameter of it requires grad
            return result
        if "module" in callee.kinds:
            self.feeds_gradients(callee, state)
            return self.output_of_module(callee, arguments, node, state)
        if callee.kind_from and self.summary_mode:  # a parameter called: the summary keeps it symbolic
            result = Value(kinds("?"), storages=frozenset((_site(node),)), fresh=True, called=callee.kind_from,
                           grad_from=callee.kind_from)  # a module passed in makes a graph tensor
            # and what it was called with: each call site of the summary calls what it passes there
            # on these (``fn(t)`` in a helper writes ``t`` where ``fn`` writes its argument)
            state[PARAMETER_CALLS] = state.get(PARAMETER_CALLS, EMPTY) | frozenset(
                (symbol, _site(node), tuple(arguments), tuple(keywords.items()))
                for symbol in callee.kind_from)
            self.record("call", node, None, result, state, callee="", arguments=tuple(arguments))
            return result
        if qual:
            return self.torch_call(qual, arguments, keywords, node, state)
        # a name the file does not define (imported by a star, a builtin of a framework): its name still says what it does
        return self.unknown_call(arguments, keywords, node, state, place_of(node.func) or "")

    def call_candidates(self, callee: Value, arguments: List[Value], keywords: dict, node, state,
                        receiver_place: Optional[str]) -> Value:
        """A value naming one of several functions of the file (call sites passing different
        ones): each is called on a path of its own, and the paths meet after the call."""
        plain = callee._replace(facts=frozenset(fact for fact in callee.facts if not fact.startswith(MAY_CALL)))
        results, states = [], []
        for fact in sorted(callee.facts):
            if fact.startswith(MAY_CALL):
                path = dict(state)
                results.append(self.call_value(plain._replace(qual=fact[len(MAY_CALL):]), arguments, keywords, node,
                                               path, receiver_place))
                states.append(path)
        joined = states[0]
        for path in states[1:]:
            joined = join_states(joined, path)
        state.clear()
        state.update(joined)
        return join_all(results)

    def unknown_call(self, arguments, keywords, node, state, name: str = "") -> Value:
        for value in list(arguments) + list(keywords.values()):
            if value.storages:
                self.record("escape", node, None, value, state)
        self.training_writes(name, list(arguments) + list(keywords.values()), node, state)
        self.record("call", node, None, UNKNOWN, state, callee=name, arguments=tuple(arguments))
        return UNKNOWN

    def save_parameters(self, module: Value, state) -> None:
        """Calling a module saves its parameters for backward (their gradients need the input,
        the input's need them; not a layer the torch tables say needs none of them, as
        ``nn.Embedding``); they go by the module's storages (``parameters()``, ``.weight``), and
        by its layers' where it is a chain of known layers (``net[2].weight`` of an ``nn.Sequential``)."""
        if not _kept_for_backward(state) or module.qual in k.LAYERS_KEEPING_NO_PARAMETERS:
            return
        if module.storages:
            add_saved(module.storages, state)
            if module.items is None:  # layers it holds that the model does not know one by one (``model[2]``)
                add_saved(frozenset(held_within("item", storage) for storage in module.storages), state)
        if "module_chain" in k.role_of("function", module.qual):
            for _, layer in module.items or ():
                if "module" in layer.kinds and "parameter_free" not in layer.facts:
                    self.save_parameters(layer, state)

    def module_output(self, arguments, node, state, layer: str = "", grad: bool = True,
                      chained: Optional[tuple] = None) -> Value:
        """A module's output is a graph tensor (of a layer without parameters, where its input
        is). What it saves for backward: for a torch layer, what the torch tables say; for a
        chain of layers, what ``chained`` says; for a module the model cannot see into, its
        inputs (its parameters' gradients need them); nothing under ``torch.no_grad()``."""
        for argument, value in zip(node.args, arguments):
            self.host_read(argument, value, state, "module_call")
        result = Value(TENSOR, grad=grad, graph=grad, storages=frozenset((_site(node),)), fresh=True,
                       device=arguments[0].device if arguments else EMPTY,
                       why=_why(Evidence.MODULE_CALL, "kind", "grad"))
        self.module_calls.add(id(node))
        if chained is not None:
            self.save(layer, arguments, result, state, node, saved=chained)
        elif layer in k.SAVED_FOR_BACKWARD or not layer:
            self.save(layer or "module", arguments, result, state, node, saved=None if layer else tuple(
                index for index, value in enumerate(arguments)
                if value.storages and (value.is_tensor or "?" in value.kinds)))
        self.record("call", node, None, result, state, callee="module", arguments=tuple(arguments))
        return result

    def placed(self, node, keywords) -> frozenset:
        """The device a ``device=`` keyword names: known, a device value's, else ``UNPLACED``."""
        given = _keyword(node, "device")
        if given is None:
            return EMPTY
        return _device_of(given) or keywords["device"].device or UNPLACED

    def constructed(self, data: Value, node) -> Value:
        """``torch.tensor(data)``: a new leaf from whatever data, on ``device=`` or data's device,
        requiring grad only with ``requires_grad=True``."""
        device = _device_of(_keyword(node, "device")) if _keyword(node, "device") is not None else data.device
        given = _keyword(node, "dtype")
        dtype = _given_dtype(given) if given is not None else _data_dtype(data) or (
            self.model.default_dtype
            if node.args and _float_literals(node.args[0]) and _dtype_spelled_out(node) else "")
        return Value(TENSOR, grad=_constant(_keyword(node, "requires_grad")) is True, storages=frozenset((_site(node),)),
                     fresh=True, device=device, why=_why(Evidence.TORCH_API, "kind"), facts=_dtype_fact(dtype))

    def output_of_module(self, module: Value, arguments, node, state) -> Value:
        """``model(x)``: a tensor as surely as ``model`` is a module (an ``nn.Module`` annotation
        alone makes it one by weak evidence: annotations lie). A layer built with
        ``inplace=True`` writes its input and returns it (what it saves is that tensor); a layer
        keeping running statistics writes them, unless ``.eval()`` was called on it here."""
        statistics = _running_statistics(module)
        if statistics:
            self.write(node, Value(TENSOR, storages=statistics), state, node, method=module.qual)
        self.run_layers_of_the_file(module, arguments, node, state)
        if _writes_input(module, module) and node.args and arguments and type(node.args[0]) is not ast.Starred:
            written = arguments[0]
            self.write(node.args[0], written, state, node, grad=written.grad, method=module.qual)
            self.save(module.qual, arguments, written, state, node)
            self.record("call", node, None, written, state, callee="module", arguments=tuple(arguments))
            return written._replace(fresh=False)
        if "parameter_free" in module.facts or FROZEN in module.facts:  # its output requires grad where its input does
            input_grad = any(value.grad for value in arguments)
            if FROZEN in module.facts and input_grad:
                self.save_parameters(module, state)  # the input's gradient needs them
            result = self.module_output(arguments, node, state, module.qual, grad=input_grad, chained=chain_saves(module))
        else:
            self.save_parameters(module, state)
            result = self.module_output(arguments, node, state, module.qual, chained=chain_saves(module))
        evidence = module.evidence("kind")
        if evidence is None or evidence.strong:
            return result
        if evidence is Evidence.ANNOTATION:
            evidence = Evidence.ANNOTATED_MODULE
        return result._replace(why=_why(evidence, "kind", "grad"))

    def run_layers_of_the_file(self, chain: Value, arguments, node, state) -> None:
        """A chain of layers (``nn.Sequential(nn.Linear(3, 3), Scaled())``) calls each of its
        layers of the file's classes on what the layers before it made: a graph tensor after a
        layer with parameters, or where the chain's input is one (their ``forward`` is then
        called as a module's, with that input); what such a layer computed from a detached read
        meets the graph of the next layer with parameters."""
        layers = chain.items
        if "module_chain" not in k.role_of("function", chain.qual) or not layers or not arguments \
                or any(key == "*" for key, _ in layers) or not any(_classes_of(layer) for _, layer in layers):
            return
        inner = ast.copy_location(ast.Call(func=getattr(node, "func", node), args=[], keywords=[]), node)
        given = arguments[0]
        recorded = _kept_for_backward(state)  # (under ``no_grad``, or a chain frozen since, no layer makes a graph)
        for position, (_, layer) in enumerate(layers):
            if _classes_of(layer):
                given = self.call_value(layer, [given], {}, inner, state)
            else:
                grad = recorded and (given.grad or "module" in layer.kinds and "parameter_free" not in layer.facts
                                     and FROZEN not in layer.facts and FROZEN not in chain.facts)
                made = Value(TENSOR, grad=grad, graph=grad, storages=frozenset((("call", _site(node), ("layer", position)),)),
                             fresh=True, device=given.device, why=_why(Evidence.MODULE_CALL, "kind", "grad"))
                given = self.carry_dropped(made, [given], node, state)  # (a layer's ``.data`` output meets a graph here)

    def torch_call(self, qual: str, arguments, keywords, node, state) -> Value:
        roles = k.role_of("function", qual)
        first = arguments[0] if arguments else UNKNOWN
        if "saves_arguments" in roles and arguments and not any(type(item) is ast.Starred for item in node.args):
            return self.checkpointed(node, arguments, keywords, state)
        if (qual in k.VIEW_FUNCTIONS or roles & {"values_indices", "values_indices_with_dim"}) and node.args \
                and type(node.args[0]) is not ast.Starred:
            # ``torch.flatten(x, 1)`` is ``x.flatten(1)``: the view (or detached alias) of its first argument
            return self.method_call(first, qual.rpartition(".")[2], node.args[0], arguments[1:], keywords, node, state,
                                    spelled=qual + "()")
        result = None
        if "host_read" in roles or "host_read" in k.role_of("package", qual.split(".")[0]):
            for argument, value in zip(node.args, arguments):
                self.host_read(argument, value, state, qual, items=True)
        self.function_writes(qual, node, arguments, keywords, state)
        if "event" in roles:
            result = Value(kinds("event"))
        elif "device" in roles:
            result = Value(kinds("device"), device=_device_of(node))
        elif "random_generator" in roles:  # its methods are the package's functions
            result = Value(kinds("pymodule"), qual=qual.rpartition(".")[0])
        elif "inplace" in roles and node.args:
            self.write(node.args[0], first, state, node)
            result = NONE
        elif "buffer_view" in roles:  # ``np.frombuffer(payload)``: an array over the buffer's own bytes
            given = _dtype_argument(node, qual)
            dtype = _given_dtype(given) if given is not None else (
                "float64" if qual.startswith("numpy.") else "")  # (NumPy's default dtype)
            result = Value(kinds("ndarray") if qual.startswith("numpy.") else TENSOR,
                           storages=first.storages or frozenset((_site(node),)), fresh=not first.storages,
                           why=_why(Evidence.TORCH_API, "kind"), facts=_dtype_fact(dtype))
        elif "scales_grads" in roles:
            given = _tensors_in(first) if arguments else None
            self.writes_gradients(given.storages if given is not None and given.storages else None, node, state)
            result = Value(TENSOR, storages=frozenset((_site(node),)), fresh=True, why=_why(Evidence.TORCH_API, "kind")) \
                if "grad_norm" in roles else NONE  # (the total norm, where it computes one)
        elif "sync" in roles:
            state[IN_FLIGHT] = EMPTY
            self.record("sync", node, None, NONE, state)
            result = NONE
        elif "constructs" in roles:
            result = self.constructed(first, node)
        elif qual in k.LEGACY_DTYPES and len(node.args) == 1 and not node.keywords and _is_array(first):
            result = self.legacy_of_array(qual, node, first, state)
        elif "dict_of_pairs" in roles:
            result = self.dict_made(node, arguments, keywords)
        elif "overlapping_each" in roles and arguments:
            result = self.overlapping_each(qual, node, arguments)
        elif "collating_loader" in roles:
            dataset = arguments[0] if node.args and type(node.args[0]) is not ast.Starred else keywords.get("dataset")
            result = _collating_loader(node, self.yields_numeric_items(dataset))
            collate = keywords.get("collate_fn")
            if collate is not None and collate.qual.startswith("local:"):
                # a collate_fn of the file: each batch is what it makes of a list of the dataset's items
                samples = Value(kinds("list"), fresh=True, items=(("*", self.element(dataset) if dataset else UNKNOWN),))
                result = result._replace(items=(("*", self.call_value(collate, [samples], {}, node, state)),))
        elif "tensor_dataset" in roles:
            result = Value(kinds("tensor_dataset"), storages=frozenset((_site(node),)), fresh=True)
        elif "yields_items" in roles and arguments and first.items is not None:
            result = Value(kinds("list"), storages=frozenset((_site(node),)), fresh=True, items=(("*", self.element(first)),))
        elif "binds_arguments" in roles and arguments and not any(type(a) is ast.Starred for a in node.args):
            result = first._replace(facts=first.facts | {BOUND_ARGUMENTS}, items=tuple(
                (str(index), value) for index, value in enumerate(arguments[1:])) + tuple(
                ("=" + name, value) for name, value in keywords.items() if name))
        elif "default_dict" in roles:  # ``defaultdict(list)``: a missing key holds what the factory makes
            made = self.call_value(first, [], {}, node, state) if arguments else UNKNOWN
            result = Value(kinds("dict"), storages=frozenset((_site(node),)), fresh=True, items=(("*", made),))
        elif "copy" in roles:
            if qual == "copy.deepcopy" and not self.summary_mode:
                self.copied_parameter(first)
            result = _differentiable(_copied(first, node), roles)
        elif "shares" in roles and node.args and _constant(_keyword(node, "copy")) is True:
            given = _keyword(node, "dtype")  # ``torch.asarray(img, copy=True)``: new memory, whatever it is given
            result = Value(kinds("ndarray") if qual.startswith("numpy.") else TENSOR, storages=frozenset((_site(node),)),
                           fresh=True, device=first.device, why=_why(Evidence.TORCH_API, "kind"),
                           facts=_dtype_fact(_given_dtype(given)) if given is not None else dtype_facts(first))
        elif "shares" in roles and node.args:
            given = _keyword(node, "dtype")
            cast = _given_dtype(given) if given is not None else ""
            if cast and (first.is_tensor or "ndarray" in first.kinds) and not may_have_dtype(first, cast):
                # ``torch.as_tensor(frame, dtype=torch.float32)`` of a float64 array: a converted copy
                result = Value(TENSOR, storages=frozenset((_site(node),)), fresh=True, device=first.device,
                               facts=_dtype_fact(cast), why=_why(Evidence.TORCH_API, "kind"))
            else:
                result = self.shared(qual, node, first, state)
                if self.summary_mode and cast and result.made:
                    # of what a caller passes: each call site's dtype decides whether it copies
                    result = result._replace(facts=result.facts | {CAST_TO + cast})
            if given is not None:  # ``torch.as_tensor(ids, dtype=torch.float32)``: that dtype, whatever ids is
                result = result._replace(facts=result.facts - dtype_facts(result) | _dtype_fact(_given_dtype(given)))
        elif "backward" in roles:
            self.record("backward", node, None, first, state, create_graph=_creates_graph(node))
            frees_saved(node, state)
            backpropagates(state)
            if qual != "torch.autograd.grad":  # it returns the gradients, filling no .grad
                self.backward_gradients(node, keywords.get("inputs"), state)
            self.function.runs_backward = True
            result = NONE
        elif "parameter" in roles:
            result = first._replace(kinds=TENSOR, grad=True, graph=False, why=_why(Evidence.TORCH_API, "kind", "grad"))
            if node.args and place_of(node.args[0]) is not None:  # ``nn.Parameter(init)``: init's memory, no copy
                result = self.aliased(node, node.args[0], result, "detach", f"{place_of(node.func) or qual}()", state)
        else:
            package, _, last = qual.rpartition(".")
            if last[:1].isupper() and _distribution_package(package):
                result = self.distribution(arguments + list(keywords.values()), node)
            elif last[:1].isupper() and "scheduler" in k.role_of("package", package):
                result = Value(kinds("scheduler"), storages=frozenset((_site(node),)), fresh=True, qual=qual)
            elif last[:1].isupper() and ("module" in k.role_of("package", package)
                                       or "optimizer" in k.role_of("package", package)):
                kind = "module" if "module" in k.role_of("package", package) else "optimizer"
                result = Value(kinds(kind), storages=frozenset((_site(node),)), fresh=True,
                               why=_why(Evidence.TORCH_API, "kind"), qual=qual,
                               items=_held_parameters(kind, keywords.get("params", first)),
                               facts=(frozenset(("parameter_free",)) if parameter_free_layer(qual) else EMPTY)
                               | (_built_dtype(node) if kind == "module" else EMPTY)
                               | (frozenset((WRITES_INPUT,)) if qual in k.LAYERS_TAKING_INPLACE
                                  and _constant(_keyword(node, "inplace")) is True else EMPTY)
                               | (frozenset((UPDATES_RUNNING_STATS,)) if qual in k.LAYERS_UPDATING_RUNNING_STATS
                                  and _constant(_keyword(node, "track_running_stats")) is not False else EMPTY))
                if "module_container" in roles:
                    result = result._replace(items=_held_modules(arguments))
            elif qual in k.FUNCTIONS_RETURNING_TENSOR or "returns_tensor" in roles:
                result = self.tensor_result(qual, last, first, arguments, keywords, node, state)
            elif qual in k.FUNCTIONS_RETURNING_TENSOR_SEQUENCE:
                element = self.tensor_result(qual, last, first, arguments, keywords, node, state)
                result = Value(kinds("tuple"), storages=frozenset((_site(node),)), fresh=True, items=(("*", element),))
        if result is None and qual.startswith("numpy."):
            result = self.array_function(qual, roles, node, first, keywords, state, arguments)
        if result is not None and "like_buffer" in roles and node.args:
            result = shaped_like(result, node.args[0], first)
        if result is None:
            return self.unknown_call(arguments, keywords, node, state, qual)
        self.record("call", node, None, result, state, callee=qual, arguments=tuple(arguments), keywords=keywords)
        return result

    def dict_made(self, node, arguments, keywords) -> Value:
        """``dict(d)``, ``dict(pairs)``, ``OrderedDict([("fc", m), ...])``: a new dict holding what
        it is given (a dict's items, or literal pairs' values under their constant keys, in
        order, or the second items of the pairs it iterates, under any key) and its keywords;
        items unknown where what it is given is not known so."""
        first = arguments[0] if arguments else None
        if first is None:
            given = ()
        elif first.items is not None and first.kinds == kinds("dict"):
            given = first.items
        else:
            given = _literal_pairs(node.args[0] if node.args else None, first)
            pair = self.element(first) if given is None and first.items is not None else None
            if pair is not None and pair.item("1") is not None:  # ``dict(m.named_parameters())``, ``dict(zip(ks, vs))``
                given = (("*", pair.item("1")),)
        return Value(kinds("dict"), storages=frozenset((_site(node),)), fresh=True,
                     items=None if given is None else given + tuple((repr(key), value) for key, value in keywords.items()))

    @staticmethod
    def overlapping_each(qual: str, node, arguments) -> Optional[Value]:
        """``torch.meshgrid(x, y)`` (or of a list): a tuple of views, the i-th of the i-th tensor
        repeated along the others' dimensions (stride 0): one memory location at many positions."""
        given = arguments
        if len(arguments) == 1 and arguments[0].items is not None and not arguments[0].is_tensor:
            given = [item for key, item in arguments[0].items if key != "*"]
        if len(given) < 2 or any(type(argument) is ast.Starred for argument in node.args) or not all(
                value.is_tensor for value in given):
            return None  # the grid of one tensor is that tensor, nothing repeats
        fact = frozenset((f"overlapping:{qual.rpartition('.')[2]}()",))
        grids = tuple((str(index), value._replace(fresh=False, graph=value.grad, items=None, made=EMPTY,
                                                  facts=dtype_facts(value) | fact))
                      for index, value in enumerate(given))
        return Value(kinds("tuple"), storages=frozenset((_site(node),)), fresh=True, items=grids)

    def yields_numeric_items(self, dataset: Optional[Value]) -> bool:
        """Whether every item of ``dataset`` holds only tensors, arrays and numbers, which the
        default ``collate_fn`` turns into tensors: a ``TensorDataset``, or an object of a class of
        the file whose ``__getitem__`` returns such a value or a tuple or dict of them."""
        if dataset is None:
            return False
        if dataset.kinds == kinds("tensor_dataset"):
            return True
        getters = [self.model.method_of(name, "__getitem__") for name in _classes_of(dataset)]
        if not getters or None in getters:
            return False
        for getter in getters:
            summary = self.model.summary(getter)
            returned = summary.returns if summary is not None else None
            parts = [item for _, item in returned.items] if returned is not None and returned.items else [returned]
            # kinds the item surely has (not what an index computes: ``"img%d" % i`` is a string)
            if not all(part is not None and part.kinds and part.kinds <= _COLLATED_KINDS and not part.kind_from
                       for part in parts):
                return False
        return True

    def distribution(self, parameters, node) -> Value:
        """``torch.distributions.Normal(mu, sigma)``: an object computing from its parameters,
        so what it computes differentiably may require grad where one of them does."""
        grad = any(value.grad for value in parameters)
        grad_from = frozenset().union(*(value.grad_from for value in parameters)) if parameters else EMPTY
        return Value(kinds("distribution"), grad=grad, grad_from=grad_from, storages=frozenset((_site(node),)),
                     fresh=True, why=_why(Evidence.TORCH_API, "kind"))

    def drawn(self, distribution: Value, differentiable: bool, node) -> Value:
        """A tensor a distribution computes: ``d.rsample()``, ``d.log_prob(x)``, ``d.loc`` keep
        the parameters' grad (a graph tensor), ``d.sample()`` is recorded by no graph."""
        grad = differentiable and distribution.grad
        return Value(TENSOR, grad=grad, graph=grad, grad_from=distribution.grad_from if differentiable else EMPTY,
                     storages=frozenset((_site(node),)), fresh=True, why=_why(Evidence.TORCH_API, "kind", "grad"))

    def tensor_result(self, qual, last, first, arguments, keywords, node, state) -> Value:
        tensors = [value for value in arguments if value.is_tensor or value.kind_from or value.grad_from]
        # a list or tuple of tensors gives its graph (``torch.stack(outs)``, ``torch.cat([a, b])``); not its
        # items' devices, which a summary knows only as "some device a caller names"
        items = [joined for value in arguments if value.items is not None and value.kinds & SEQUENCES
                 for joined in [items_join(value)] if joined is not None]
        grad = any(value.grad for value in tensors + items)
        requires = keywords.get("requires_grad")
        leaf_grad = requires is not None and _constant(_keyword(node, "requires_grad")) is True
        device = self.placed(node, keywords)
        if not device:
            device = frozenset().union(*(value.device for value in tensors)) if tensors else EMPTY
        if not device and not tensors and qual in k.DEFAULT_DTYPE_FACTORIES and self.model.default_device:
            device = frozenset((self.model.default_device,))  # ``torch.randn(5)``: on the default device
        view = last in k.VIEW_METHODS and (first.is_tensor or first.kind_from)
        if not view:
            for argument, value in zip(node.args, arguments):
                self.host_read(argument, value, state, "torch_function", items=True)
        result = Value(
            TENSOR, grad=grad or leaf_grad, graph=grad, device=device, fresh=not view,
            storages=first.storages if view else frozenset((_site(node),)),
            why=_why(Evidence.TORCH_API, "kind", *(("device",) if device else ())),
            grad_from=frozenset().union(*(value.grad_from for value in tensors + items)) if tensors or items else EMPTY,
            pinned=_pinned_where_it_matters(_keyword(node, "pin_memory")),
            facts=view_facts(k.role_of("function", qual), last, f"{qual}()") | _blank(qual)
            | (_viewed_dtype(first, last, node, arguments[1:]) if view
               else _dtype_fact(result_dtype(qual, node, arguments, keywords, self.model.default_dtype))),
        )
        if "index_result" in k.role_of("function", qual):
            result = result._replace(grad=False, graph=False, grad_from=EMPTY)
        elif "new_leaf" in k.role_of("function", qual):
            result = result._replace(grad=leaf_grad, graph=False, grad_from=EMPTY)
        self.save(qual, arguments, result, state, node)
        if "new_leaf" in k.role_of("function", qual):
            return result  # ``torch.randn_like(w.data)`` takes only its shape: no value of ``w`` is dropped
        return self.carry_dropped(result, arguments, node, state)

    def builtin(self, name: str, arguments, keywords, node, state) -> Value:
        first = arguments[0] if arguments else UNKNOWN
        roles = k.role_of("function", "builtins." + name)
        if "host_read" in roles or "shows" in roles:
            for argument, value in zip(node.args, arguments):
                self.host_read(argument, value, state, name, sure="shows" in roles)
        if name in ("len", "int", "round", "hash", "id", "ord"):
            result = INTEGER
        elif name == "float":  # a Python number, whatever it converts: no graph
            result = NUMBER
        elif name in ("abs", "pow", "divmod"):
            result = NUMBER if not first.is_tensor else first._replace(fresh=True)
        elif name in ("min", "max") and len(arguments) > 1 and all(value.kinds <= _NUMERIC for value in arguments):
            result = join_all(arguments)  # ``min(a.shape[2], extent)``: one of the numbers given
        elif name in ("isinstance", "bool", "callable", "hasattr", "issubclass"):
            result = BOOL
        elif name in ("str", "repr", "format"):
            result = STRING
        elif name in ("list", "tuple", "set", "sorted", "reversed", "iter", "frozenset"):
            if arguments and node.args:
                first = self.iterator_of(first, node.args[0], state)
                if first.kinds == _DICT:  # ``list(stats)``: its keys
                    first = Value(kinds("list"), items=(("*", UNKNOWN),))
            in_order = name in ("list", "tuple") and _positional_items(first)
            result = Value(kinds(name if name in ("list", "tuple", "set") else "list"),
                           storages=frozenset((_site(node),)), fresh=True,
                           items=first.items if in_order else (("*", self.element(first)),) if arguments else ())
        elif name == "map" and len(arguments) >= 2:  # ``map(f, xs)``: f called with each item
            made = self.call_value(first, [self.element(value) for value in arguments[1:]], {}, node, state)
            result = Value(kinds("list"), storages=frozenset((_site(node),)), fresh=True, items=(("*", made),))
        elif name == "filter" and len(arguments) == 2:  # some of the iterable's items
            result = Value(kinds("list"), storages=frozenset((_site(node),)), fresh=True,
                           items=(("*", self.element(arguments[1])),))
        elif name == "dict":
            result = self.dict_made(node, arguments, keywords)
        elif name in ("zip", "enumerate"):
            elements = [INTEGER] if name == "enumerate" else []
            elements += [self.iterated(argument, value, state) for argument, value in zip(node.args, arguments)]
            pair = Value(kinds("tuple"), items=tuple((str(index), value) for index, value in enumerate(elements)))
            result = Value(kinds("list"), storages=frozenset((_site(node),)), fresh=True, items=(("*", pair),))
        elif name == "range":
            result = Value(kinds("list"), items=(("*", INTEGER),))
        elif name in ("max", "min", "sum", "next"):
            candidates = arguments if len(arguments) > 1 else [self.element(first)]
            result = join_all(candidates)
            if name == "sum" and result.is_tensor:
                result = result._replace(storages=frozenset((_site(node),)), graph=result.grad, fresh=True)
        elif name == "getattr" and len(arguments) >= 2 and type(node.args[1]) is ast.Constant:
            result = self.attribute_of(first, str(node.args[1].value), node, state)
        elif name == "setattr" and len(node.args) == 3 and type(node.args[1]) is ast.Constant \
                and str(node.args[1].value).isidentifier() and not iskeyword(node.args[1].value):
            # ``setattr(self, "w0", w)`` is ``self.w0 = w``
            target = ast.copy_location(ast.Attribute(value=node.args[0], attr=node.args[1].value, ctx=ast.Store()), node)
            self.assign(target, arguments[2], state, node)
            result = NONE
        elif name == "super" and not arguments:
            result = self.superclass(state)
            if result is None:
                return self.unknown_call(arguments, keywords, node, state, name)
        else:
            return self.unknown_call(arguments, keywords, node, state, name)
        self.record("call", node, None, result, state, callee=name, arguments=tuple(arguments),
                    keywords=keywords)
        return result

    def superclass(self, state: dict) -> Optional[Value]:
        """``super()`` in a method: the receiver as its class's first base, a class of the file
        (its methods) or a torch.nn layer (``super().forward(x)``: that layer's output)."""
        function = self.function
        owner = function.owner
        if owner is None or not function.receiver_offset or not owner.bases:
            return None
        receiver = state.get(function.names[0])
        storages = receiver.storages if type(receiver) is Value else EMPTY
        base = owner.bases[0]
        if base.startswith("class:") and base[6:] in self.model.classes:
            module = self.model.class_is_module(self.model.classes[base[6:]])
            return Value(frozenset({"object:" + base[6:]} | ({"module"} if module else set())), grad=module,
                         storages=storages)
        package, _, last = base.rpartition(".")
        if last[:1].isupper() and "module" in k.role_of("package", package) and base != "torch.nn.Module":
            return Value(kinds("module"), grad=True, storages=storages, qual=base, why=_why(Evidence.TORCH_API, "kind"),
                         facts=_inherited_layer_facts(base))
        return None

    def method_call(self, receiver: Value, method: str, receiver_node, arguments, keywords, node, state,
                    spelled: str = "") -> Value:
        """``spelled``: how the code names the operation where it is not the method
        (``torch.flatten()`` for ``torch.flatten(x)``)."""
        receiver_place = place_of(receiver_node)
        results = []
        for class_name in _classes_of(receiver):
            found = self.model.method_of(class_name, method)
            if found is not None:
                bound = [receiver] + arguments if found.receiver_offset else arguments
                results.append(self.apply(found, bound, keywords, node, state, receiver_place))
                if method == "forward":  # ``net.forward(x)``: its forward ran
                    forwarded(receiver, state)
                continue
            stored = self.model.instance_attribute(class_name, method)
            if stored is not None:
                if self.summary_mode:
                    self.handed_function_called(receiver, method, stored, arguments, keywords, node, state)
                results.append(self.call_value(stored, arguments, keywords, node, state))
                if _runs_forward(stored):  # ``self.model(x)``
                    self.ran_forward(stored, node, state)
        if results:
            return join_all(results)
        if self.summary_mode and _tensor_of_parameter(receiver):
            # ``model.weight.view(-1)`` of a module a caller passes: a tensor's method at every call site
            receiver = receiver._replace(kinds=TENSOR)
        if receiver.qual.startswith("class:") and self.model.method_of(receiver.qual[6:], method) is not None:
            return self.class_method_call(receiver, method, arguments, keywords, node, state)
        if receiver.qual.startswith("local:") or receiver.qual.startswith("class:"):
            return self.call_value(self.attribute_of(receiver, method, node), arguments, keywords, node, state)
        roles = k.role_of("method", method)
        if "saves_for_backward" in roles:  # ``ctx.save_for_backward(x)``: kept for the output's backward
            self.saved_for_backward(arguments, "ctx.save_for_backward", node, state)
            return NONE
        if "clears_grads" in roles and self.summary_mode and _constant(
                node.args[0] if node.args else _keyword(node, "set_to_none")) is not False:
            state["!drops_grads"] = NONE  # ``opt.zero_grad()`` of whatever the caller passes: its caller's gradients are new
        if "record" in roles and "event" in receiver.kinds:
            if receiver_place is not None and "[" not in receiver_place:
                state[receiver_place] = receiver._replace(pending=state.get(IN_FLIGHT, EMPTY))
            return NONE
        if "event_sync" in roles and ("event" in receiver.kinds or method == "wait_event"):
            waited = receiver if method == "synchronize" else (arguments[0] if arguments else UNKNOWN)
            in_flight = state.get(IN_FLIGHT, EMPTY)
            state[IN_FLIGHT] = in_flight - waited.pending if "event" in waited.kinds else EMPTY
            self.record("sync", node, receiver_place, receiver, state)
            return NONE
        if "sync" in roles and "move" not in roles and (method == "synchronize" or _on_device(receiver)):
            state[IN_FLIGHT] = EMPTY
            self.record("sync", node, receiver_place, receiver, state)
            if method == "synchronize":
                return NONE
        if "registers" in roles and "module" in receiver.kinds:
            return self.register(receiver_place, node, arguments, state)
        if "tensor_dict" in roles and not receiver.is_tensor and (receiver.items is None or "module" in receiver.kinds):
            return self.tensor_dict(receiver, arguments, node, state, method)
        if "forward_hook" in roles and "module" in receiver.kinds and arguments:
            return self.forward_hook(receiver, arguments[0], receiver_node, node, state)
        if method in _MODULE_TENSORS and receiver.kinds == UNKNOWN.kinds:
            # ``net.parameters()``: only a module has it; a module from here on, by use
            receiver = receiver._replace(kinds=kinds("module"), grad=True, why=_why(Evidence.USE, "kind"))
            if receiver_place is not None and "[" not in receiver_place and receiver_place in state:
                state[receiver_place] = receiver
        if "module" in receiver.kinds or "optimizer" in receiver.kinds:
            return self.module_method(receiver, method, arguments, node, state)
        if "distribution" in receiver.kinds and roles & {"reparameterized", "draw"}:
            return self.drawn(receiver, "reparameterized" in roles, node)
        if (method in TENSOR_ONLY_METHODS | {"backward"} or "tensor_only" in roles) and not self.summary_mode:
            self.used_as_tensor(receiver)
        if method == "backward" and not receiver.grad and not self.summary_mode and receiver_place \
                and "." not in receiver_place and "[" not in receiver_place:
            self.function.backpropagated.add(receiver_place)
        if (method in TENSOR_ONLY_METHODS | {"backward"} or "tensor_only" in roles) and not (
                self.summary_mode and receiver.kind_from and method in MODULE_SELF_METHODS):
            # (in a summary, ``model.to(device)`` of what callers pass: a module has it too, and returns itself)
            receiver = self.proven_by_use(receiver, roles, receiver_place, state, receiver_node)
            whole = _indexed_whole(receiver_node)
            if whole is not None and type(state.get(whole)) is Value and "?" in state[whole].kinds:
                # ``x[:k].t()``: a part of x is a tensor, so x is one, and the part is its memory
                base = self.proven_by_use(state[whole], roles, whole, state)
                receiver = receiver._replace(storages=receiver.storages | base.storages)
        if receiver.is_tensor:
            result = self.tensor_method(receiver, method, roles, receiver_node, receiver_place, arguments,
                                        keywords, node, state, spelled)
            self.record("call", node, None, result, state, callee=method, arguments=tuple(arguments),
                        keywords=keywords)
            return result
        if _is_array(receiver):
            return self.array_method(receiver, method, receiver_node, arguments, keywords, node, state)
        if receiver.items is None and method in k.CONTAINER_GROWTH and arguments and receiver.kinds <= {"?", "list"} \
                and receiver.storages:
            # ``history.append(loss)`` of a list a caller passes: a container from here on, holding what it is given
            held = _filled_elsewhere(receiver, receiver_place)
            receiver = receiver._replace(items=(("*", held),) if held.storages else ())
        if receiver.items is not None:
            return self.container_method(receiver, method, receiver_place, arguments, keywords, node, state)
        if method in ("values", "items") and not arguments and receiver.kind_from and self.summary_mode:
            return _iteration_of(method, self.element(receiver))  # ``kwargs.items()`` of a mapping a caller passes
        if method in ("values", "items") and not arguments and receiver.items is None and receiver.kinds <= _MAPPINGS:
            held = _filled_elsewhere(receiver, receiver_place)  # a mapping the file did not fill: its items, held by it
            if held.storages:
                return _iteration_of(method, held)
        if receiver.kind_from and self.summary_mode and "step" in roles:  # a parameter used as an optimizer
            self.steps_parameter(receiver, state)
            return NONE
        if receiver.kind_from and self.summary_mode and method in _MODULE_TENSORS:  # a parameter used as a module
            return _module_tensors(receiver, method)
        if (receiver.kind_from or receiver.called) and self.summary_mode:
            if not roles and method not in TENSOR_ONLY_METHODS and "?" in receiver.kinds \
                    and self.method_of_parameter_called(receiver, method, arguments, keywords, node, state):
                # what it returns is what that method returns at each call site (``policy.act(obs)``)
                result = Value(kinds("?"), storages=frozenset((_site(node),)), fresh=True, called=receiver.kind_from,
                               grad_from=receiver.kind_from if not state.get(NO_GRAD) else EMPTY)
                self.record("call", node, None, result, state, callee="", arguments=tuple(arguments))
                return result
            # a parameter, or what calling one returns (``layer(x).mean()``): tensor semantics, kind
            # left symbolic, each call site's argument decides
            result = self.tensor_method(receiver, method, roles, receiver_node, receiver_place, arguments,
                                        keywords, node, state, spelled)
            if result.is_tensor:
                # its graph as the call site's argument has it, unless the method cut it (``argmax()``)
                return result._replace(kinds=kinds("?"), kind_from=receiver.kind_from, called=receiver.called,
                                       grad_from=result.grad_from)
            return result
        if "step" in roles and "?" in receiver.kinds:
            self.steps_unseen_optimizer(node, state)
        if "clears_grads" in roles and "?" in receiver.kinds:
            self.clears_gradients(None, node, state)
        if method in ("append", "add", "extend", "insert") and arguments and receiver.kinds & {"?", "list", "set"}:
            # a container whose items the file does not know (a caller's ``history``): it grows all the same
            added = arguments[-1] if method != "extend" else self.element(arguments[-1])
            self.record("accumulate", node, receiver_place, added, state, old=receiver,
                        added=node.args[-1] if node.args else node, of_items=method == "extend")
        return self.unknown_call(arguments, keywords, node, state, method)

    def tensor_dict(self, receiver: Value, arguments, node, state, method: str) -> Value:
        """``m.state_dict()``: a new dict whose values are tensors sharing the module's memory
        (a module's: its live parameters, an alias made here; of an unknown object too, which
        ``state_dict()`` says is a module), none requiring grad."""
        weights = Value(TENSOR, why=_why(Evidence.TORCH_API, "kind"))
        if "module" in receiver.kinds or "?" in receiver.kinds or any(kind.startswith("object:") for kind in receiver.kinds):
            weights = weights._replace(storages=self.module_storages(receiver))
            if not arguments:
                weights = self.aliased(node, node.func.value, weights, "state_dict", "state_dict()", state,
                                       in_container=True)
        result = Value(kinds("dict"), storages=frozenset((_site(node),)), fresh=True, items=(("*", weights),))
        self.record("call", node, None, result, state, callee=method, arguments=tuple(arguments))
        return result

    def class_method_call(self, cls: Value, method: str, arguments, keywords, node, state) -> Value:
        """``C.m(...)`` of a class of the file: a classmethod gets the class as its first
        argument, a plain or static method only what the call passes (``C.m(obj, x)``)."""
        found = self.model.method_of(cls.qual[6:], method)
        decorators = {place_of(item) for item in getattr(found.node, "decorator_list", ())}
        bound = [cls] + arguments if "classmethod" in decorators else arguments
        return self.apply(found, bound, keywords, node, state)

    def proven_by_use(self, receiver: Value, roles, receiver_place: Optional[str], state: dict,
                      receiver_node=None) -> Value:
        """A tensor-only method called on what is not surely a tensor: an unknown receiver is one
        from here on, by use; one known by weak evidence only where no look-alike has the method
        (its ``tensor_only`` role)."""
        evidence = receiver.evidence("kind")
        if receiver.is_tensor and (evidence is not None and evidence.strong or "tensor_only" not in roles):
            return receiver
        if not receiver.is_tensor and "?" not in receiver.kinds:
            return receiver
        receiver = receiver._replace(kinds=receiver.kinds - {"?"} | TENSOR, why=_why(Evidence.USE, "kind") + tuple(
            pair for pair in receiver.why if pair[0] != "kind"))
        if receiver_place is not None and "[" not in receiver_place and receiver_place in state:
            receiver = _named_from_here(receiver, receiver_node)
            _proved(receiver_place, receiver, state)
        return receiver

    def called_parameter(self, callee: Value) -> None:
        """An unknown parameter called on arguments: in a function that backpropagates, it is
        the module being trained (``model(x)`` then ``loss.backward()``), by use (weak)."""
        if len(callee.storages) != 1:
            return
        index = parameter_index(next(iter(callee.storages)), self.function.name)
        if index is not None and index >= self.function.receiver_offset:
            self.function.called_parameters.add(index)

    def copied_parameter(self, copied: Value) -> None:
        """An unknown parameter given to ``copy.deepcopy``: where the function also calls it on
        arguments, it is a module being snapshotted, by use (weak)."""
        if len(copied.storages) == 1 and "?" in copied.kinds:
            index = parameter_index(next(iter(copied.storages)), self.function.name)
            if index is not None and index >= self.function.receiver_offset:
                self.function.copied_parameters.add(index)

    def used_as_tensor(self, receiver: Value) -> None:
        """A tensor-only method called on a parameter not proven a tensor: on every path that
        gets here it is one, so it was one on entry (a caller passing a list is the bug)."""
        if receiver.evidence("kind") is not None and receiver.evidence("kind").strong or len(receiver.storages) != 1:
            return  # proven already, or it may hold something else than the parameter
        index = parameter_index(next(iter(receiver.storages)), self.function.name)
        if index is not None and index >= self.function.receiver_offset:
            self.function.used_as_tensor.add(index)


    def module_method(self, receiver, method, arguments, node, state) -> Value:
        if "clears_grads" in k.role_of("method", method):
            held = receiver.all_items() if "optimizer" in receiver.kinds else None
            self.clears_gradients(held.storages if held is not None and held.storages else
                                  self.module_storages(receiver) if "module" in receiver.kinds else None, node, state)
            return NONE
        if method == "step":
            self.step_writes(receiver, node, state)
            self.record("step", node, None, receiver, state)
            if self.summary_mode:
                state["!steps"] = NONE
            return NONE
        if method in _MODULE_TENSORS:
            held = self.module_storages(receiver) | self.bound_since_entry(node.func.value, state)
            return _module_tensors(receiver._replace(storages=held), method)
        if method == "load_state_dict" and arguments:
            return self.load_state(receiver, arguments[0], node, state)
        if method in MODULE_SELF_METHODS:
            place = place_of(node.func.value) if type(node.func) is ast.Attribute else None
            if method in ("train", "eval"):  # ``m.eval()``, ``m.train(False)``: its running statistics stay
                mode = node.args[0] if node.args else _keyword(node, "mode")
                evaluating = method == "eval" or mode is not None and _constant(mode) is False
                receiver = receiver._replace(facts=receiver.facts | {IN_EVAL} if evaluating else receiver.facts - {IN_EVAL})
                if place is not None and "[" not in place:  # ``bn.eval()``, ``self.bn.eval()``
                    state[place] = receiver
            if method == "requires_grad_" and "module" in receiver.kinds:
                # ``backbone.requires_grad_(False)``: none of its parameters requires grad from now on
                freezing = _turns_grad_off(node)
                receiver = receiver._replace(facts=receiver.facts | {FROZEN} if freezing else receiver.facts - {FROZEN})
                if place is not None and "[" not in place:
                    state[place] = receiver
                if not freezing:  # ``backbone[0].requires_grad_(True)``: the backbone is frozen no more
                    thaw_holders(place, state)
            if method not in ("cuda", "cpu", "train", "eval", "requires_grad_") and not _moved_only(node):
                # cast in place: ``m.half()``, ``m.to(torch.float16)`` give its floating parameters that dtype
                cast = k.CAST_DTYPES.get(method) or _module_cast(node)
                receiver = receiver._replace(facts=receiver.facts - dtype_facts(receiver) | (
                    {"dtype:" + cast} if cast in k.FLOATING_DTYPES else set()))
                if place is not None and "[" not in place and place in state:
                    state[place] = receiver
            return receiver
        if method == "forward":  # ``m.forward(x)`` is ``m(x)`` without its hooks
            forwarded(receiver, state)
            self.feeds_gradients(receiver, state)
            return self.output_of_module(receiver, arguments, node, state)
        if method in _SUBMODULE_METHODS or method in ("values", "items") and receiver.qual == _MODULE_DICT:
            layer = submodule(receiver)
            if method in ("modules", "named_modules"):  # the module itself first
                layer = join(receiver, layer)
            if method.startswith("named_") or method == "items":
                layer = Value(kinds("tuple"), items=(("0", STRING), ("1", layer)))
            return Value(kinds("list"), storages=frozenset((_site(node),)), fresh=True, items=(("*", layer),))
        return self.unknown_call(arguments, {}, node, state, method)

    def tensor_method(self, receiver, method, roles, receiver_node, receiver_place, arguments, keywords,
                      node, state, spelled: str = "") -> Value:
        site = frozenset((_site(node),))
        spelled = spelled or f"{method}()"
        any_grad = receiver.grad or any(value.grad for value in arguments)
        if "retain_grad" in roles:
            return self.retain_grad(receiver, receiver_place, state)
        if "requires_grad" in roles:
            return self.requires_grad(receiver, receiver_place, node.args[0] if node.args else _keyword(
                node, "requires_grad"), state)
        if "backward" in roles:
            self.record("backward", node, receiver_place, receiver, state, create_graph=_creates_graph(node))
            frees_saved(node, state)
            backpropagates(state)
            self.backward_gradients(node, keywords.get("inputs"), state)
            self.function.runs_backward = True
            if self.summary_mode:
                state["!backward"] = NONE
            if receiver_place is not None and "[" not in receiver_place and receiver_place in state:
                state[receiver_place] = receiver._replace(grad=True, graph=True)  # only a graph output has one
            return NONE
        if "pin" in roles:
            return receiver._replace(storages=site, fresh=True, pinned=True, pending=EMPTY, items=None, made=EMPTY)
        if "value_read" in roles:
            self.host_read(receiver_node, receiver, state, method)
            if method == "numpy":
                array = receiver._replace(kinds=kinds("ndarray"), grad=False, graph=False, fresh=False,
                                          kind_from=EMPTY)  # an array whatever the caller passes
                return self.aliased(node, receiver_node, array, "numpy", "numpy()", state)
            return _read_back(receiver_node) if method == "item" else Value(kinds("list"), fresh=True, storages=site)
        if "integer" in roles:
            return INTEGER
        if "detach" in roles:  # only a tensor has it: the result is one for sure
            detached = receiver._replace(kinds=TENSOR, items=None, grad=False, graph=False, fresh=False,
                                         grad_from=EMPTY, why=(("kind", Evidence.USE),) + tuple(
                                             pair for pair in receiver.why if pair[0] != "kind"))
            return self.aliased(node, receiver_node, detached, "detach", spelled, state) if method == "detach" else detached
        if "copy" in roles:
            return _differentiable(_copied(receiver, node), roles)
        if "move" in roles:
            return self.move(receiver, method, roles, receiver_node, arguments, keywords, node, state)
        if method in k.METADATA_INPLACE:  # ``x.t_()``: the same values seen with another shape
            self.write(receiver_node, receiver, state, node, kind="retag", method=method)
            forget_layout(receiver.storages, state)
            return receiver._replace(fresh=False, facts=layout.without_layout(receiver.facts))
        if method in k.INPLACE_METHODS:
            self.write(receiver_node, receiver, state, node, grad=any_grad, method=method)
            written = receiver._replace(grad=any_grad, graph=receiver.graph or any(value.grad for value in arguments))
            if "output" in (k.SAVED_FOR_BACKWARD.get("torch.Tensor." + method[:-1]) or ()):
                # ``h.sigmoid_()`` keeps its result for backward, as ``h.sigmoid()`` does: the tensor it wrote
                self.save("torch.Tensor." + method, (), written, state, node, saved=("output",))
            if "uniform_write" not in roles:  # ``buf.normal_()``, ``buf.copy_(x)``: content now, no longer blank
                written = written._replace(facts=written.facts - BLANK)
            if method in k.RESIZES_IN_PLACE:  # ``x.resize_(n)``, ``x.set_(u)``: sizes no longer known
                forget_layout(receiver.storages, state)
                written = written._replace(facts=layout.without_layout(written.facts))
            if "async_copy" in roles and arguments and _non_blocking(node) and (receiver.pinned or arguments[0].pinned):
                written = written._replace(pending=self.start_copy(node, arguments[0], receiver.pinned, state))
                self.pending_in_base(receiver_node, written.pending, state)
            # a copy in flight into an attribute (``self.buf``) is stored there: other methods read it pending
            if receiver_place is not None and "[" not in receiver_place and (receiver_place in state or written.pending):
                state[receiver_place] = written
            return written
        if "values_indices" in roles or "values_indices_with_dim" in roles and _along_a_dim(arguments, keywords):
            return self.values_and_indices(receiver, method, receiver_node, node, state)
        # ``torch.max(a, b)``, ``a.min(b)``: the elementwise maximum (minimum) of two tensors
        elementwise = "values_indices_with_dim" in roles and bool(arguments) and arguments[0].is_tensor
        function = _ELEMENTWISE.get(method) if elementwise else "torch.Tensor." + method
        # a tensor with no argument given, as the generated tables measured (``x.nonzero()``, ``x.unique()``:
        # other overloads return tuples), or as the hand table says (``p.norm()``, a full reduction ``w.max()``)
        bare = not arguments and not keywords
        untabled = "returns_tensor" in roles or bare and (
            "full_reduction" in roles or method in k.METHODS_RETURNING_TENSOR_WITHOUT_ARGUMENTS)
        # ``torch.atleast_2d(x)``: a view function with no method twin hands back ``x`` or a view of it
        view = method in k.VIEW_METHODS or spelled == f"torch.{method}()" and f"torch.{method}" in k.VIEW_FUNCTIONS
        relaid, copied = self.relaid(receiver, self.layout_step(method, node, state)) if view else (EMPTY, False)
        view = view and not copied  # ``reshape()`` of a layout no view has: a copy
        if view or copied or method in k.METHODS_RETURNING_TENSOR or method in k.METHODS_RETURNING_TENSOR_SEQUENCE \
                or elementwise or untabled:
            if not view:
                self.host_read(receiver_node, receiver, state, "tensor_method")
            result = Value(TENSOR, grad=any_grad, graph=any_grad, device=receiver.device,
                           storages=receiver.storages if view else site, fresh=not view,
                           why=_why(Evidence.TENSOR_METHOD, "kind") if method in TENSOR_ONLY_METHODS
                           else weakest_kind(_why(Evidence.TENSOR_METHOD, "kind"), receiver),
                           grad_from=receiver.grad_from | frozenset().union(*(v.grad_from for v in arguments)),
                           facts=view_facts(roles, method, spelled) | relaid | (
                               _viewed_dtype(receiver, method, node, arguments) | _casts(receiver) if view
                               else _viewed_dtype(receiver, method, node, arguments) if copied
                               else _dtype_fact(result_dtype(function, node, arguments, keywords))),
                           made=receiver.made if view else EMPTY)  # a view of an alias is that alias too
            if "index_result" in roles:
                result = result._replace(grad=False, graph=False, grad_from=EMPTY)
            elif "new_leaf" in roles:  # ``w.new_zeros(3)``: a new leaf, requiring grad only where asked
                return result._replace(grad=_constant(_keyword(node, "requires_grad")) is True, graph=False,
                                       grad_from=EMPTY)
            if method == "expand" and _broadcasts_a_new_unit_dim(node):
                result = result._replace(facts=result.facts | {NONCONTIGUOUS})
            self.save(function, [receiver] + arguments, result, state, node)
            if view:
                result = self.aliased(node, receiver_node, result, _view_kind(method), spelled, state,
                                      in_container=method in k.METHODS_RETURNING_TENSOR_SEQUENCE)
            result = self.carry_dropped(result, [receiver] + arguments, node, state)
            if method in k.METHODS_RETURNING_TENSOR_SEQUENCE:
                return Value(kinds("tuple"), storages=site, fresh=True, items=(("*", result),))
            return result
        return UNKNOWN

    def values_and_indices(self, receiver: Value, method: str, receiver_node, node, state) -> Value:
        """``w.max(-1)``, ``w.sort()``: a named tuple of a new tensor of values, in the graph
        where ``w`` is, and a tensor of indices (``.values``/``[0]``, ``.indices``/``[1]``), which
        the values' backward needs where the torch tables say so. It reads ``w``'s values."""
        self.host_read(receiver_node, receiver, state, "tensor_method")
        site = frozenset((_site(node),))
        why = weakest_kind(_why(Evidence.TENSOR_METHOD, "kind"), receiver)
        values = Value(TENSOR, grad=receiver.grad, graph=receiver.grad, device=receiver.device, storages=site,
                       fresh=True, why=why, grad_from=receiver.grad_from, facts=dtype_facts(receiver))
        ends = (node.end_lineno, node.end_col_offset)
        indices = Value(TENSOR, device=receiver.device, storages=frozenset((ends + ends,)), fresh=True, why=why,
                        facts=_dtype_fact("int64"))  # memory of its own: writing the indices leaves the values
        result = Value(kinds("tuple"), storages=site, fresh=True, items=(("0", values), ("1", indices)),
                       facts=frozenset((FIELDS + "values|indices",)))
        operation = "torch.Tensor." + method
        if "indices" in (k.SAVED_FOR_BACKWARD.get(operation) or ()) and (values.grad or values.grad_from) \
                and _kept_for_backward(state):
            add_saved(indices.storages, state)
            self.record("save", node, None, values, state, op=operation, what="indices", storages=indices.storages)
        return result

    def pending_in_base(self, view_node, pending: frozenset, state) -> None:
        """An asynchronous copy into part of a tensor (``self.buf[:n].copy_(x, non_blocking=True)``)
        fills the tensor's memory: what reads the tensor, or another slice of it, reads it pending."""
        base = view_node
        while type(base) is ast.Subscript:
            base = base.value
        place = place_of(base)
        if base is view_node or place is None or "[" in place:
            return
        recording, self.recording = self.recording, False
        value = self.evaluate(base, state)
        self.recording = recording
        if value.is_tensor:
            state[place] = value._replace(pending=value.pending | pending)

    def retained_by_callee(self, function, retained: frozenset, actuals: list, node, state: dict) -> list:
        """The arguments a callee called ``retain_grad()`` on keep their ``.grad``, where the
        caller names them and in what the callee stores or returns of them."""
        kept = list(actuals)
        for index in retained:
            if index < len(kept) and kept[index] is not None:
                kept[index] = kept[index]._replace(facts=kept[index].facts | {RETAINS_GRAD})
        places = self.argument_places(function, node)
        for index in retained:
            place = places[index] if index < len(places) else None
            if place is not None and "[" not in place and place in state:
                state[place] = state[place]._replace(facts=state[place].facts | {RETAINS_GRAD})
        return kept

    def retain_grad(self, receiver: Value, receiver_place: Optional[str], state) -> Value:
        """``y.retain_grad()``: backward fills the non-leaf's ``.grad`` from now on (a parameter's
        tensor: the caller's, a fact of the summary)."""
        if receiver_place is not None and "[" not in receiver_place and receiver_place in state:
            state[receiver_place] = receiver._replace(facts=receiver.facts | {RETAINS_GRAD})
        if self.summary_mode and receiver_place is not None:
            # the parameter itself, by its own name: a view or part of it keeps its own ``.grad``
            names = self.function.names
            indices = {index for index in (parameter_index(storage, self.function.name)
                                           for storage in receiver.storages)
                       if index is not None and index < len(names) and names[index] == receiver_place}
            if indices:
                state["!retained"] = state.get("!retained", EMPTY) | indices
        return NONE

    def move(self, receiver, method, roles, receiver_node, arguments, keywords, node, state) -> Value:
        """``to``/``cuda``/``float``...: the tensor itself when nothing changes, else a copy;
        a copy for sure when narrowing proved the dtype or device differs, or ``copy=True``."""
        site = frozenset((_site(node),))
        target = node.args[0] if node.args else _keyword(node, "dtype") or _keyword(node, "device")
        target_value = arguments[0] if node.args else keywords.get("dtype") or keywords.get("device")
        other = place_of(target) if target is not None else None
        copies = (other is not None and "!=:" + other in receiver.facts) or _constant(_keyword(node, "copy")) is True
        cast = k.CAST_DTYPES.get(method) or dtype_named(other or "")
        if not cast and method in ("type_as", "to") and node.args and target_value is not None and target_value.is_tensor:
            cast = dtype_of(target_value)  # ``mask.type_as(x)``, ``y.to(x)``: the other tensor's dtype
        if not cast and method == "type_as" and dtype_of(receiver) == "bool":
            copies = True  # a mask made numeric (the convention: a bool tensor is matched to data, not to another mask)
        copies = copies or bool(cast and not may_have_dtype(receiver, cast))  # ``.float()`` of a uint8 tensor
        relaid, relaid_copies = self.relaid(receiver, self.layout_step(method, node, state)) \
            if method == "contiguous" else (EMPTY, False)
        copies = copies or method == "contiguous" and (NONCONTIGUOUS in receiver.facts or relaid_copies)
        device = _device_of(target) if target is not None else EMPTY
        if not device and target_value is not None:
            device = target_value.device  # a name bound to a device, or a tensor's
        if method in ("cuda", "cpu"):
            device = frozenset((method,))
        if not device:
            device = self.placed(node, keywords)
        to_host = device == HOST and receiver.device != HOST
        # between the host and a GPU, surely: always a copy (``.cuda()`` of a host tensor)
        copies = copies or _across_host_and_gpu(receiver.device, device)
        if to_host and not _non_blocking(node) and "sync" in roles:  # a blocking read of a device tensor
            state[IN_FLIGHT] = EMPTY
            self.record("sync", node, place_of(receiver_node), receiver, state)
        # ``.float()`` of a float32 tensor, moved nowhere: the tensor itself, a leaf if it was one
        # (or moved to the one device it is on: ``.to("cpu")``, ``.cpu()`` of a host tensor)
        same_device = not device or len(receiver.device) == 1 and device == receiver.device
        itself = not copies and bool(cast or device) and (not cast or dtype_of(receiver) == cast) and same_device \
            and len(node.args) <= 1 and all(keyword.arg in ("dtype", "device", "non_blocking")
                                            for keyword in node.keywords)  # no memory_format=
        result = receiver._replace(
            storages=site if copies else receiver.storages | site, fresh=copies,
            device=device or (EMPTY if _to_an_unknown_device(method, node, cast) else receiver.device),
            graph=receiver.graph or receiver.grad and not itself, pending=EMPTY, items=None, pinned=False,
            facts=(frozenset(("dtype:" + cast,)) if cast else EMPTY) | relaid,
        )
        index_cast = "index_cast" in roles
        if self.summary_mode and cast and not copies and not device:
            # a cast of what a caller passes: each call site's dtype decides whether it copies
            # (an index cast, only where the tensor passed surely has that dtype already)
            result = result._replace(facts=result.facts | {CAST_TO + cast} | ({SURELY_CAST} if index_cast else EMPTY))
        if "async_copy" in roles and _non_blocking(node) and (to_host or receiver.pinned):
            result = result._replace(pending=self.start_copy(node, receiver, to_host, state), pinned=to_host)
        if copies:
            return result._replace(made=EMPTY)
        # ``ids.long()`` of an int64 tensor is the tensor itself; of a tensor of unknown dtype, taken
        # for the copy an index cast of floats makes (unless each caller's dtype decides, above)
        surely_itself = bool(cast) and dtype_of(receiver) == cast or self.summary_mode and SURELY_CAST in result.facts \
            and _only_parameters(receiver, self.function.name)
        if (not index_cast or surely_itself) and _keyword(node, "non_blocking") is None and (method != "type" or node.args):
            return self.aliased(node, receiver_node, result, "move", method + "()", state)
        return result

    def register(self, receiver_place, node, arguments, state) -> Value:
        """``self.register_buffer("name", t)``: the module holds ``t`` as ``self.name``."""
        name = _constant(node.args[0]) if node.args else None
        if receiver_place is not None and "[" not in receiver_place and type(name) is str and len(arguments) > 1:
            place = f"{receiver_place}.{name}"
            self.forget(place, state)
            state[place] = arguments[1]
            self.record("bind", node, place, arguments[1], state)
        return NONE

    def requires_grad(self, receiver: Value, receiver_place: Optional[str], flag, state) -> Value:
        """``x.requires_grad_()`` / ``x.requires_grad = True``: ``x`` itself, from now on a tensor
        that requires grad (``flag``, the setting's expression, a constant False: not, unless it
        is in a graph)."""
        wanted = flag is None or _constant(flag) is not False
        result = receiver._replace(grad=wanted or receiver.graph, fresh=False,
                                   why=receiver.why + _why(Evidence.TORCH_API, "grad"))
        if receiver_place is not None and "[" not in receiver_place and receiver_place in state:
            state[receiver_place] = result
        return result

    def container_method(self, receiver, method, receiver_place, arguments, keywords, node, state) -> Value:
        if method == "update" and keywords and not arguments and receiver.kinds == kinds("dict"):
            arguments = [self.dict_made(node, [], keywords)]  # ``d.update(a=w)`` is ``d.update(dict(a=w))``
        if method in ("append", "add", "extend", "insert", "update", "setdefault") and arguments:
            added = arguments[-1] if method not in ("extend", "update") else self.element(arguments[-1])
            if method in ("append", "insert") and node.args and type(node.args[-1]) is ast.Attribute \
                    and added.storages and all(is_gradient(storage) for storage in added.storages):
                added = self.assigned(node.args[-1], added, state)  # ``maps.append(x.grad)``: the gradient under another name
            if method == "update" and arguments[-1].items is not None:
                items = dict(receiver.items)
                items.update(arguments[-1].items)
            else:
                items = dict(receiver.items)
                items["*"] = join(items["*"], added) if "*" in items else added
            if receiver_place is not None and self.bind_place(
                    receiver_place, receiver._replace(items=tuple(items.items())), state):
                if method not in ("extend", "update"):
                    self.record("bind", node, receiver_place + "[*]", added, state)
            self.record("accumulate", node, receiver_place, added, state, old=receiver,
                        added=node.args[-1] if node.args else node, of_items=method in ("extend", "update"),
                        method=method)
            return NONE
        if method in ("pop", "popitem"):  # answered here: a ``call`` event as unknown calls have one (TEN306)
            self.record("call", node, None, NONE, state, callee=method, arguments=tuple(arguments))
        if method in ("get", "pop") and arguments and type(node.args[0]) is ast.Constant:
            found = receiver.item(key_of(node.args[0]))
            return found if found is not None else UNKNOWN
        if method in ("values", "pop", "popitem", "copy", "items", "keys"):
            element = self.element(receiver)
            if method == "copy":
                return receiver._replace(storages=frozenset((_site(node),)), fresh=True)
            if method in ("pop", "popitem"):
                return element
            return _iteration_of(method, element)
        return self.unknown_call(arguments, {}, node, state, method)

    # ----- functions and classes of the file
    def instantiate_class(self, name, arguments, keywords, node, state) -> Value:
        info = self.model.classes[name]
        instance_kinds = {"object:" + name} | ({"module"} if self.model.class_is_module(info) else set())
        layer = self.inherited_layer(info)
        instance = Value(frozenset(instance_kinds), storages=frozenset((_site(node),)), fresh=True,
                         grad="module" in instance_kinds, qual=layer, facts=_inherited_layer_facts(layer))
        initializer = self.model.method_of(name, "__init__")
        if initializer is not None:
            self.apply(initializer, [instance] + arguments, keywords, node, state)
            instance = self.holding_what_it_was_given(initializer, instance, arguments, keywords, node)
            if "module" in instance_kinds and _freezes_itself(initializer):  # a frozen feature extractor
                instance = instance._replace(facts=instance.facts | {FROZEN})
            flags = constructor_flags(initializer, node)
            if flags:  # ``Clip(0.5)``: its ``self.inplace`` is False for good
                steady, elsewhere = info.steady_attributes(self.model.classes), self.model.stores_elsewhere
                instance = instance._replace(facts=instance.facts | frozenset(
                    f"{FLAG}{attribute}={constant}" for attribute, constant in flags.items()
                    if attribute in steady and not elsewhere[attribute]))
        elif info.fields or info.init_fields(self.model.classes):
            # a dataclass or a named tuple: its generated ``__init__`` stores each field it takes
            taken = info.init_fields(self.model.classes)
            bound = dict(zip(taken, self.fields_kept(node.args, _spread(node, arguments), state)))
            bound.update((field, self.fields_kept([keyword.value], [keywords[field]], state)[0])
                         for field, keyword in ((keyword.arg, keyword) for keyword in node.keywords)
                         if field in taken and field in keywords)
            if not self.summary_mode:
                self.model.pass_fields(info, bound)
            # this object's own fields (``snap.weights`` of ``snap = Snapshot(w.detach(), 0)``), by position;
            # not those ``__post_init__`` stores again (``self.image = np.array(self.image)``)
            post_init = self.model.method_of(name, "__post_init__")
            restored = getattr(self.model.summary(post_init), "stores", None) or {} if post_init is not None else {}
            instance = instance._replace(items=tuple((str(index), bound[field]) for index, field in enumerate(info.fields)
                                                     if field in bound and field not in restored),
                                         facts=frozenset((FIELDS + "|".join(info.fields),)))
            if post_init is not None:  # the generated ``__init__`` ends by calling it on the new object
                # (its fields as passed: a write there is of the caller's tensor, not through a name made here)
                given = dict(zip(taken, _spread(node, arguments)))
                given.update((field, keywords[field]) for field in taken if field in keywords)
                self.apply(post_init, [instance._replace(items=tuple(
                    (str(index), given[field]) for index, field in enumerate(info.fields) if field in given))],
                    {}, node, state)
            self.record("call", node, None, instance, state, callee=name, arguments=tuple(arguments))
        else:
            self.record("call", node, None, instance, state, callee=name, arguments=tuple(arguments))
        return instance

    def field_in_post_init(self, class_name: str, name: str) -> Optional[Value]:
        """In a dataclass's ``__post_init__``, a field holds what the construction passed (the
        generated ``__init__`` stored it just before), whatever ``__post_init__`` stores there."""
        info = self.model.classes.get(class_name)
        if info is None or self.function.owner is not info or name not in info.passed_fields \
                or getattr(self.function.node, "name", "") != "__post_init__":
            return None
        return self.model.field_as_passed(info, name)

    def fields_kept(self, expressions, values: list, state: dict) -> list:
        """What a dataclass's generated ``__init__`` keeps of each argument (``Episode(obs=state)``):
        a tensor or an array named there is kept as it is, a second name for it made at the
        argument, as ``self.obs = obs`` makes one in a written ``__init__``."""
        if len(expressions) != len(values) or any(type(expression) is ast.Starred for expression in expressions):
            return values
        return [self.assigned(expression, value, state, kept_past_the_call=bool(value.kind_from))
                for expression, value in zip(expressions, values)]

    def captured_read(self, nested, node, state: dict) -> None:
        """A call of a function nested in this one (``def drift(): return (w - ref).norm()``) reads,
        there, the tensors and arrays it captures by name: what the names hold at the call."""
        for name in _captured_values(nested):
            held = state.get(name)
            if type(held) is Value and held.storages and (held.is_tensor or "ndarray" in held.kinds):
                self.record("read", node, name, held, state, by_call=place_of(getattr(node, "func", None)) or name)

    def captured_by_a_returned_function(self, callee: Value, node, state: dict) -> None:
        """A call of a function a factory returned (``meter = make_meter(w)``, then ``meter()``)
        reads the aliases it captured there, as the call site now holds them."""
        function = self.model.functions_by_name.get(callee.qual[6:])
        if function is None or function.parent is self.function:
            return  # (a function of this one's own reads what the names hold now: ``captured_read``)
        for _, held in callee.items:
            self.record("read", node, None, held, state, by_call=place_of(getattr(node, "func", None)) or "")

    def inherited_layer(self, info) -> str:
        """The torch layer a class of the file is when called: the ``torch.nn`` class it derives
        from, where no class of its lineage defines ``forward`` or ``__call__`` (``class
        Policy(nn.RNNCell)`` adding a method): what the layer saves and writes, its call does."""
        lineage = info.lineage(self.model.classes)
        # (nor one that overrides how the layer switches modes: ``train()`` kept in eval freezes a norm's statistics)
        if any(name in holder.methods for holder in lineage for name in ("forward", "__call__", "train", "eval")):
            return ""
        layers = [base for holder in lineage for base in holder.bases
                  if base.startswith("torch.nn.") and base.rpartition(".")[2] != "Module"]
        return layers[0] if len(layers) == 1 else ""

    def receiver_flags(self, function, arguments) -> frozenset:
        """The steady flags of the receiver (``FLAG``) a method's summary is to be solved under:
        those it tests, all of them where it calls another method of its object."""
        if not function.receiver_offset or not arguments or type(arguments[0]) is not Value:
            return EMPTY
        flags = frozenset(fact for fact in arguments[0].facts if fact.startswith(FLAG))
        if not flags:
            return EMPTY
        if function.flags_read is None:
            function.flags_read = _receiver_flags_read(function, self.model)
        if function.flags_read is ALL:
            return flags
        return frozenset(fact for fact in flags if fact[len(FLAG):].partition("=")[0] in function.flags_read)

    def holding_what_it_was_given(self, initializer, instance: Value, arguments, keywords, node) -> Value:
        """An object whose ``__init__`` keeps what this construction passes (``self.pixels =
        pixels``) holds this call's values there, as a record's fields (``frame.pixels`` of
        ``Frame(video.numpy())`` is that array, the alias it is included), not the join over
        every construction of the class."""
        summary = self.model.summary(initializer)
        if summary is None or not summary.stores:
            return instance
        # (or a container of what it was handed, ``self.params = list(params)``: the same items)
        kept = sorted((path, value) for path, value in summary.stores.items() if "." not in path and any(
            parameter_index(storage[1] if storage[:1] == ("attribute",) else storage, initializer.name) is not None
            for storage in value.storages if type(storage) is tuple) or _items_handed(value, initializer.name))
        if not kept:
            return instance
        actuals = self.model.bind_arguments(initializer, _spread(node, [instance] + arguments), keywords)
        given = Instantiation(initializer.name, actuals, lambda value, sites: UNKNOWN)
        return instance._replace(items=tuple((str(index), _as_passed(given, value)) for index, (_, value) in enumerate(kept)),
                                 facts=instance.facts | {FIELDS + "|".join(path for path, _ in kept)})

    def apply(self, function, arguments, keywords, node, state, receiver_place: Optional[str] = None,
              module_call: bool = False, environment: frozenset = EMPTY, callee_value: Optional[Value] = None) -> Value:
        """A call of a function of the file: its summary, instantiated with the arguments. Calling
        a module (``module_call``) hands back new memory, as torch's layers are taken to: a forward
        returns its input as it is only on paths no model is built for (a loop over its layers that
        runs no pass)."""
        arguments = _spread(node, arguments)
        actuals = self.model.bind_arguments(function, arguments, keywords)
        if self.recording:
            still_held = self.kept_arguments(function, arguments, actuals, node, state)
            self.effect(partial(self.model.passed_to, function, self.model.with_defaults(function, actuals, node)))
            self.effect(partial(self.model.note_disputes, function, self.function, node, arguments, keywords))
            self.effect(partial(_note_kept, function, still_held))
            # grad mode at the call; a module called as one (``model(x)``) is taken to be trained somewhere
            self.effect(partial(_note_grad_at_call, function, module_call or not state.get(NO_GRAD)))
        if function.parent is self.function:
            self.captured_read(function, node, state)
        if function.owner is not None and function.receiver_offset and not self.summary_mode:
            # a method's summary reads its instance's attributes: a solve using it sees them as they are now
            self.model.attributes_read(self.function, function.owner.name)
        summary = self.model.summary(function, self.receiver_flags(function, arguments))
        if summary is None:  # recursion: the callee is being summarised
            return self.unknown_call(arguments, keywords, node, state, function.name)
        written = summary.writes | summary.item_writes | summary.items_assigned
        if self.recording and written:  # (what an updater's callers do with what they passed it)
            self.effect(partial(_note_read_again, function, self.names_read_again(function, arguments, node, written)))
        if summary.retained:
            actuals = self.retained_by_callee(function, summary.retained, actuals, node, state)
        passed_results = {}  # call site in the callee -> what a function a caller passed returned there
        instance = Instantiation(function.name, actuals,
                                 lambda value, sites: self.passed_call_result(value, sites, passed_results, node, state),
                                 _site(node), (function.node.lineno, getattr(function.node, "end_lineno", 0)),
                                 self.instance_storages(function, actuals, receiver_place, state),
                                 self.handed_dtypes(function, actuals), _layers_kept(function, actuals),
                                 self.factory_call(function, callee_value) if callee_value is not None else None)
        if summary.forwarded and not state.get(NO_GRAD):  # ``train(net, x)`` ran ``net``'s forward
            state[FORWARDED] = state.get(FORWARDED, EMPTY) | instance.storages(summary.forwarded)
        for index in summary.reads:  # read on the host before any sync in the callee
            read = instance.actual(index)
            if read.pending:
                self.record("read", node, None, read, state, value_read=function.name)
        if summary.syncs:
            state[IN_FLIGHT] = EMPTY
            self.record("sync", node, None, NONE, state)
        for index in summary.writes | summary.item_writes:
            written = instance.actual(index)
            if index not in summary.writes and not (_array_only(written) or self.summary_mode and written.kind_from and any(
                    fact.startswith(WITHIN_PASSED) for fact in written.facts)):
                continue  # ``p[i] = v`` replaces an item of the list or dict passed (not of an item a caller passes)
            if index in summary.writes_at_keys and not _array_only(written):
                continue  # ``batch["feats"].mul_(2)`` of a container: the item at that key (below), not all of it
            if written.kinds and written.kinds <= _PLAIN_DATA:
                continue  # a shape tuple or a number: the callee writes only the tensor it makes of it
            if written.storages:
                # the aliases each write went through: the callee's own, and those the argument is
                ways = summary.written_through.get(index) or frozenset((EMPTY,))
                # ``buf[i] = v`` in the callee: an item of what it was handed (``items_only``), not all of it
                self.write(node, written, state, node, through=frozenset(way | written.made for way in ways),
                           temporaries=_made_by_arguments(node, written) if node is self.discarded else EMPTY,
                           **({"items_only": True} if index not in summary.writes else {}))
        # ``scale_all({"x": x})``, ``update(target=acc)`` into ``**options``: a write to what it was handed
        # there (``batch[key].mul_(2)``) is a write to the items the caller's container holds
        for index in summary.items_written | summary.items_assigned | frozenset(
                index for index in summary.writes - summary.writes_at_keys if not _array_only(instance.actual(index))):
            items = instance.actual(index).all_items() if instance.actual(index).items else None
            if items is not None and items.storages and not items.kinds <= _PLAIN_DATA and (
                    index not in summary.items_assigned or index in summary.items_written or _array_only(items)):
                # an alias no place holds, handed straight to a helper that writes it, as for a plain parameter
                self.write(node, items, state, node, through=frozenset((items.made,)),
                           temporaries=_made_by_arguments(node, items) if node is self.discarded else EMPTY)
        for index, key in sorted(summary.keyed_items_written):
            # ``batch["feats"][:, 0] = 1`` in the callee: a write of that item of the container passed here
            passed = instance.actual(index)
            item = _item_at(passed, key)
            if item is not None and item.storages and _array_only(item):
                self.write(node, item, state, node, through=frozenset((item.made,)))
            elif item is None and self.summary_mode:
                self.keyed_write_of_parameters(passed, key, state)
        if summary.parameter_calls:
            passed_results.update(self.call_what_was_passed(function, summary.parameter_calls, instance, node, state))
        for test, compared in summary.identity_tests:  # decided on what this call passes
            compared = tuple(_as_passed(instance, value) for value in compared)
            if self.summary_mode:
                self.identity_test_of_parameters(test, compared, state)
            else:
                self.record("compare", test, None, BOOL, state, compared=compared)
        self.attributes_written(function, summary, node, receiver_place, state, instance)
        writes_held = summary.writes_held
        if writes_held and function.receiver_offset and IN_EVAL in instance.actual(0).facts:
            # a module put in eval mode: its layers' running statistics stay as they are
            writes_held = frozenset(storage for storage in writes_held if not (
                storage[:1] == ("attribute",) and storage[2] in k.RUNNING_STATISTICS))
        if writes_held:
            self.write(node, Value(kinds("?"), storages=instance.storages(writes_held)), state, node,
                       through=frozenset((summary.held_written_through,)))
        if summary.reads_held:
            called = place_of(node.func) if type(node) is ast.Call else None
            self.record("read", node, None, Value(kinds("?"), storages=instance.storages(summary.reads_held),
                                                  made=summary.reads_held_made), state,
                        by_call=called or function.name)
        for index in summary.stepped:
            self.step_writes(instance.actual(index), node, state)
        if summary.in_flight:
            state[IN_FLIGHT] = state.get(IN_FLIGHT, EMPTY) | summary.in_flight
        if summary.backward:
            frees_saved(None, state)
            backpropagates(state)
        if summary.drops_grads:  # a helper's ``zero_grad()``: what the caller holds is no gradient any more
            drop_gradients(held_gradients(state), node, state)
        elif summary.backward:  # a helper's backward adds into the gradients the caller holds
            self.writes_gradients(None, node, state)
        if (summary.saved or summary.saved_if_grad) and _kept_for_backward(state) and _graph_kept(summary):
            kept = instance.storages(_saved_for_caller(summary, instance.lines)) | self.saved_if_grad(
                summary, instance, state)
            add_saved(kept, state)
            # its output (the memory it returns that it saved), told apart from its inputs before the
            # instance maps both to storages of the caller (an input may be an earlier call's output)
            output = instance.storages(summary.saved_returned)
            self.saved_outputs |= output
            self.record("save", node, None, NONE, state, op="local:" + function.name,
                        what="output" if output else "input", storages=kept, outputs=output)
        if summary.backward:
            self.record("backward", node, None, NONE, state)
        if summary.steps:
            self.record("step", node, None, NONE, state)
        if receiver_place is not None and function.receiver_offset and summary.stores:
            for path, value in summary.stores.items():
                place = f"{receiver_place}.{path}"
                self.forget(place, state)
                state[place] = instance.value(value)
                if state[place].made:  # an alias the method kept there (``self.ref = x.detach()``)
                    self.record("bind", node, place, state[place], state)
        bound = dict(fact[len(ENVIRONMENT):].split("=", 1) for fact in environment)
        for name, value in summary.closure_stores.items():
            if name in state and type(state[name]) is Value and self.encloses(function, name):  # fill its container
                place = name
            elif type(state.get(bound.get(name))) is Value:  # a factory's parameter: the container its caller gave
                place = bound[name]
            else:
                continue
            state[place] = _filled(state[place], value, instance)  # (``feats["fc"] = out.detach()``: an alias kept there)
            self.record("bind", node, place, state[place], state)
        for name, value in summary.global_stores.items():
            # ``remember(params)`` bound ``BEST = v`` under ``global``: the module's name holds what it was passed
            # (as the caller reads it: unless a local of its own has that name)
            if self.function is self.model.module or name in self.function.graph.declared_global \
                    or name not in self.function.bound_names:
                self.forget(name, state)
                state[name] = instance.value(value)
                self.record("bind", node, name, state[name], state)
        if summary.parameter_stores:
            # ``remember(model, store)`` filled ``store``: the caller's container holds what it put there
            places = self.argument_places(function, node)
            for index, value in summary.parameter_stores.items():
                place = places[index] if index < len(places) else None
                if place is not None and "[" not in place and type(state.get(place)) is Value:
                    state[place] = _filled(state[place], value, instance)
                    self.record("bind", node, place, state[place], state)
        result = instance.value(summary.returns) if summary.returns is not None else NONE
        if module_call and result.is_tensor and not any(made in self.model.alias_makers for made in summary.returns.made):
            # its input handed back as it is (no view, no detach of it): new memory, as for torch's layers
            passed = instance.storages(frozenset(storage for storage in summary.returns.storages
                                                 if parameter_index(storage, function.name) is not None))
            if passed:
                result = result._replace(storages=result.storages - passed | {_site(node)}, fresh=True)
        result = self.handed_back(function, len(arguments), summary.returns, result, node, state,
                                  _handed_as_is(instance, function, summary.returns) if not module_call else EMPTY,
                                  fresh=frozenset(index for index, value in enumerate(actuals)
                                                  if value is not None and (value.fresh or module_call)),
                                  receiver_place=None if module_call else receiver_place,
                                  tensors=frozenset(index for index, value in enumerate(actuals)
                                                    if value is not None and value.kinds == TENSOR))
        result = _items_handed_as_is(instance, function, summary.returns, result)
        if summary.returns is not None and summary.returns.is_tensor:
            # ``criterion(feats.data, y)``: what the callee computes from a detached read meets its graph there
            result = self.carry_dropped(result, [instance.actual(index) for callee, index in summary.returns.grad_from
                                                 if callee == function.name], node, state)
        if result.qual.startswith("local:") and type(node) is ast.Call:
            result = self.closed_over(function, result, node, actuals, instance)
        elif result.items and type(node) is ast.Call:  # ``return make_decay(a), make_decay(b)``: each closure
            result = result._replace(items=tuple(
                (key, self.closed_over_through(function, item, node, instance, slot=position)
                 if item.qual.startswith("local:") else item) for position, (key, item) in enumerate(result.items)))
        self.record("call", node, None, result, state, callee=function.name, arguments=tuple(arguments))
        return result

    def call_what_was_passed(self, function, parameter_calls: frozenset, instance, node, state: dict) -> dict:
        """A callee that calls a function its caller passes (``fn(t)``, ``return f(torch.from_numpy(a))``)
        calls, at this call site, the function passed here with what it was called on: its writes of
        those arguments, what it saves and returns are this call's (events at a call of no argument
        expressions in this call's place: the passed function is not called on this expression's
        own arguments). Only a function or object of the file: what anything else does to its
        arguments is not known."""
        inner = ast.copy_location(ast.Call(func=getattr(node, "func", node), args=[], keywords=[]), node)
        calls = {}
        for symbol, site, arguments, keywords in parameter_calls:
            if symbol[0] != function.name:
                continue
            known = calls.setdefault((symbol, site), ([], {}))
            for position, value in enumerate(arguments):
                if position < len(known[0]):
                    known[0][position] = join(known[0][position], value)
                else:
                    known[0].append(value)
            for name, value in keywords:
                known[1][name] = join(known[1][name], value) if name in known[1] else value
        results = {}
        for (symbol, site), (arguments, keywords) in sorted(calls.items(), key=lambda pair: repr(pair[0])):
            passed = instance.actual(symbol[1])
            if len(symbol) == 4:  # a method called on it (``rng.shuffle(data)``)
                results[site] = self.method_of_what_was_passed(
                    passed, symbol[2], [instance.value(value) for value in arguments],
                    {name: instance.value(value) for name, value in keywords.items() if name}, inner, state)
                continue
            if len(symbol) == 3:  # what the object passed there keeps (``self.transform``), this instance's own
                passed = _named_field(passed, symbol[2]) or UNKNOWN
            if not (passed.qual.startswith("local:") or BOUND_ARGUMENTS in passed.facts or _classes_of(passed)):
                continue
            results[site] = self.call_value(passed, [instance.value(value) for value in arguments],
                                            {name: instance.value(value) for name, value in keywords.items() if name},
                                            inner, state)
        return results

    def handed_function_called(self, receiver: Value, attribute: str, stored: Value, arguments, keywords, node,
                               state: dict) -> None:
        """``self.transform(x)`` in a summary, of what the object's constructor was handed: each
        instance calls its own (``Dataset(a, transform=jitter)``), a parameter call of the
        receiver's attribute (``(function, index, attribute)``) that each call site resolves."""
        if not any(type(storage) is tuple and storage[:1] == (HANDED,) for storage in stored.storages):
            return
        indices = {parameter_index(storage, self.function.name) for storage in receiver.storages} - {None}
        if len(indices) == 1:
            state[PARAMETER_CALLS] = state.get(PARAMETER_CALLS, EMPTY) | {(
                (self.function.name, indices.pop(), attribute), _site(node), tuple(arguments), tuple(keywords.items()))}

    def method_of_parameter_called(self, receiver: Value, method: str, arguments, keywords, node, state: dict) -> bool:
        """``rng.shuffle(data)``, ``agent.remember(x)`` in a summary, on what a caller passes and no
        tensor has as a method: a parameter call (``(function, index, method, METHOD)``) each call
        site resolves on the object it passes there; whether it is one."""
        indices = {index for callee, index in receiver.kind_from if callee == self.function.name}
        if len(indices) != 1 or len(receiver.kind_from) != 1:
            return False
        state[PARAMETER_CALLS] = state.get(PARAMETER_CALLS, EMPTY) | {(
            (self.function.name, indices.pop(), method, METHOD), _site(node), tuple(arguments), tuple(keywords.items()))}
        return True

    def method_of_what_was_passed(self, receiver: Value, method: str, arguments, keywords, node, state: dict) -> Value:
        """A method a callee called on what this call passes: that object's method where it is an
        object of the file's classes; a random generator's in-place draw (``rng.shuffle(a)``) writes
        its argument here."""
        if any(self.model.method_of(name, method) is not None for name in _classes_of(receiver)):
            return self.method_call(receiver, method, node, arguments, keywords, node, state)
        qual = f"{receiver.qual}.{method}" if "pymodule" in receiver.kinds and receiver.qual else ""
        if qual and "inplace" in k.role_of("function", qual) and arguments and arguments[0].storages:
            self.write(node, arguments[0], state, node, method=qual)
        return UNKNOWN

    def passed_call_result(self, passed: Value, sites: frozenset, results: dict, node, state: dict) -> Value:
        """What a callee's call of a function its caller passes returned at this call (``called``
        in its summary): the result of calling it on the arguments it was given there, where those
        are known, else of calling it on none."""
        found = [results[site] for site in sites if site in results]
        return join_all(found) if found else self.call_value(passed, [], {}, node, state)

    def bound_again(self) -> frozenset:
        """The names the function binds more than once, or in a loop (``n = n - 2``, ``for n in
        sizes``): a split at such a name (``buf[:n]``, ``buf[n:]``) may be at two places."""
        node = self.function.node
        cache = self.model.answers.setdefault("bound again", {})
        if id(node) not in cache:
            cache[id(node)] = _names_bound_again(node)
        return cache[id(node)]

    def factory_call(self, function, callee: Value) -> Optional[Instantiation]:
        """For a closure a factory of the file made (``log = make_logger(lin)``, then ``log()``): its
        factory's parameters as that factory's call passed them."""
        factory = function.parent
        sites = [fact[len(FACTORY_CALL):] for fact in callee.facts if fact.startswith(FACTORY_CALL)]
        if factory is None or len(sites) != 1:
            return None
        made_by, actuals = self.model.factory_calls.get(tuple(int(part) for part in sites[0].split(",")), (None, None))
        if made_by is not self.function or not actuals or not any(actuals):
            return None  # (called in another function, ``self.decay()`` of one ``__init__`` made: its values are not ours)
        return Instantiation(factory.name, actuals, lambda value, sites: UNKNOWN)

    def closed_over(self, factory, made: Value, node: ast.Call, actuals, instance: Instantiation) -> Value:
        """A nested function a factory returns (``make_hook(acts, "fc")``): its enclosing names
        that are the factory's parameters name what this call passed, where it passed a place
        (``store`` is the caller's ``acts``): a hook filling ``store[name]`` fills ``acts``. What the
        call passed is kept by its site (``FACTORY_CALL``): the closure runs on it, whatever the
        caller binds those names to later."""
        nested = self.model.functions_by_name.get(made.qual[6:])
        if nested is None:
            return made
        if nested.parent is not factory:
            return self.closed_over_through(factory, made, node, instance)
        bound = frozenset(f"{ENVIRONMENT}{name}={place}" for name, place in zip(factory.names, self.argument_places(
            factory, node)) if place is not None and "[" not in place)
        site = _site(node)
        self.model.factory_calls[site] = (self.function, list(actuals))
        return made._replace(facts=made.facts | bound | {FACTORY_CALL + ",".join(map(str, site))})

    def closed_over_through(self, wrapper, made: Value, node: ast.Call, instance: Instantiation,
                            slot: Optional[int] = None) -> Value:
        """A closure a factory made in ``wrapper`` and ``wrapper`` hands back (``def build(t): return
        make_decay(t, 0.5)``): the factory's call there passed what this call passes ``wrapper``,
        so the closure runs on this caller's values, and its enclosing names that were
        ``wrapper``'s parameters name this call's places. ``slot``: its position in a tuple of
        closures ``wrapper`` hands back (each kept apart at this call's site)."""
        sites = [fact for fact in made.facts if fact.startswith(FACTORY_CALL)]
        if len(sites) != 1:
            return made
        made_by, inner = self.model.factory_calls.get(
            tuple(int(part) for part in sites[0][len(FACTORY_CALL):].split(",")), (None, None))
        if made_by is not wrapper or not inner:
            return made
        places = dict(zip(wrapper.names, self.argument_places(wrapper, node)))
        bound = set()
        for fact in made.facts:
            if fact.startswith(ENVIRONMENT):
                name, place = fact[len(ENVIRONMENT):].split("=", 1)
                head, dot, rest = place.partition(".")
                if places.get(head) is not None:  # (a local of ``wrapper`` names nothing here)
                    bound.add(f"{ENVIRONMENT}{name}={places[head]}{dot}{rest}")
        site = _site(node) + ((slot,) if slot is not None else ())
        self.model.factory_calls[site] = (self.function, [
            None if value is None else _as_passed(instance, value) for value in inner])
        return made._replace(facts=frozenset(fact for fact in made.facts if not fact.startswith((
            FACTORY_CALL, ENVIRONMENT))) | bound | {FACTORY_CALL + ",".join(map(str, site))})

    def instance_storages(self, function, actuals, receiver_place: Optional[str], state: dict) -> Optional[dict]:
        """For a method called on an instance the file builds (``layer(x)``, ``env.observe()``):
        each storage its class allocates for an attribute, mapped to that instance's
        (``_per_instance``), so that what the method saves, returns or reads is the memory
        ``layer.w`` names at the call site; or what the caller bound there since (``layer.w =
        other`` before ``layer.step()``: the method then works on that tensor). Worked out at each
        call: the class's attributes grow while the file is solved."""
        receiver = actuals[0] if function.receiver_offset and actuals and actuals[0] is not None else None
        info = function.owner
        if receiver is None or info is None or not any(_allocated(storage) for storage in receiver.storages):
            return None
        mapping, by_name = {}, {}
        for owner in info.lineage(self.model.classes):
            for name, stored in sorted(owner.attributes.items()):
                mine = _per_instance(owner, receiver, name, stored).storages
                for storage in stored.storages - mine:  # what the class allocates: what this instance's attribute holds
                    mapping.setdefault(storage, set()).update(mine)
                    by_name.setdefault(name, set()).add(storage)
                for storage, held in _handed_to_this_instance(receiver, name, stored, self.handed_keys(owner, name)).items():
                    mapping.setdefault(storage, set()).update(held)
                # what a method was handed and keeps there (``self.power = power.numpy()`` in ``attach``):
                # where this caller bound the attribute, what it bound
                by_name.setdefault(name, set()).update(
                    storage for storage in stored.storages if type(storage) is tuple and storage[:1] == (HANDED,))
        rebound = {name: state[f"{receiver_place}.{name}"] for name in by_name
                   if receiver_place is not None and type(state.get(f"{receiver_place}.{name}")) is Value}
        for name, value in rebound.items():
            for storage in by_name[name]:
                mapping[storage] = value.storages or mapping.get(storage, {storage})
        return {storage: frozenset(held) for storage, held in mapping.items()}

    def handed_keys(self, owner, name: str) -> frozenset:
        """The symbols of what ``__init__`` was handed that ``self.<name>`` holds the items of
        (``self.params = list(params)``): a method's summary may name those items by them."""
        initializer = owner.methods.get("__init__")
        summary = self.model.summary(initializer) if initializer is not None else None
        stored = summary.stores.get(name) if summary is not None else None
        if stored is None or not _items_handed(stored, initializer.name):
            return EMPTY
        return frozenset((HANDED, owner.name, initializer.name, initializer.names[index])
                         for storage in storages_held(stored)
                         for index in [parameter_holding(storage, initializer.name)] if index is not None)

    def handed_dtypes(self, function, actuals) -> dict:
        """Per storage of what the receiver's constructor was handed and keeps (and its items),
        the dtype this instance's field surely has (``np.uint8`` images): a cast of it in the
        method (``torch.from_numpy(self.images[i]).float()``) copies there for another dtype."""
        receiver = actuals[0] if function.receiver_offset and actuals and actuals[0] is not None else None
        if receiver is None or function.owner is None or not _has_fields(receiver):
            return {}
        dtypes = {}
        for owner in function.owner.lineage(self.model.classes):
            for name, stored in owner.attributes.items():
                handed = _handed_to_this_instance(receiver, name, stored)
                if not handed:
                    continue
                field = _named_field(receiver, name)
                items = items_join(field)
                for storage in handed:
                    kept = field if storage[:1] == (HANDED,) else items
                    dtypes[storage] = surely_dtype(kept) if kept is not None else ""
        return dtypes

    def forward_hook(self, module: Value, hook: Value, module_node, node, state: dict) -> Value:
        """``m.register_forward_hook(hook)``: each call of ``m`` runs ``hook(m, inputs, output)``
        with its output, a graph tensor where ``m`` has parameters or is a layer of a chain after
        one that has, and grad is recorded where it is called. Where the function calls ``m``
        (or the chain holding it) later, the hook runs at those calls (``HOOKED``), each in its
        own grad mode; else its effects (what it keeps in the enclosing function's containers)
        are those of calls elsewhere, as if grad were recorded there."""
        if hook.qual.startswith("local:"):
            fed = "parameter_free" not in module.facts or self.fed_by_parameters(module_node, state)
            closure = environment_of(hook)
            if self.called_later(module_node, node):
                state[HOOKED] = state.get(HOOKED, EMPTY) | {(storage, hook.qual, fed, closure)
                                                             for storage in module.storages}
            else:
                self.run_hook(module, hook.qual, fed, node, state, closure)
        return Value(kinds("handle"), storages=frozenset((_site(node),)), fresh=True)

    def run_hook(self, module: Value, hook: str, fed: bool, node, state: dict, closure: frozenset = EMPTY) -> None:
        """One call of a forward hook on ``module``'s output (``fed``: in a graph where grad is
        recorded); what it keeps in enclosing containers, not an event of its own."""
        grad = fed and not state.get(NO_GRAD)
        known = module.evidence("kind")
        output = Value(TENSOR, grad=grad, graph=grad, storages=frozenset((_site(node),)), why=_why(
            Evidence.MODULE_CALL if known is None or known.strong else Evidence.ANNOTATED_MODULE, "kind", "grad"))
        if self.recording:  # the hook's own parameters: the module, its inputs, its output
            function = self.model.functions_by_name[hook[6:]]
            self.effect(partial(self.model.passed_to, function,
                                self.model.bind_arguments(function, [module, UNKNOWN, output], {})))
        self.recording, recording = False, self.recording
        before = dict(state)
        try:
            self.call_value(Value(kinds("function"), qual=hook, facts=closure), [module, UNKNOWN, output], {}, node, state)
        finally:
            self.recording = recording
        for place, value in state.items():  # what it kept (``feats["fc"] = output.detach()``) is bound here
            if type(value) is Value and value is not before.get(place) and place.isidentifier():
                self.record("bind", node, place, value, state)

    def called_later(self, module_node, node) -> bool:
        """Whether the running function calls, after ``node``, the module ``module_node`` names or
        the container it is an item of (``model(x)`` after ``model[1].register_forward_hook``)."""
        place = place_of(module_node)
        if place is None:
            return False
        names = {place, split_items(place)[0]}
        return any(type(call) is ast.Call and (call.lineno, call.col_offset) > (node.lineno, node.col_offset)
                   and place_of(call.func) in names for call in descendants(self.function.node))

    def ran_forward(self, module: Value, node, state: dict) -> None:
        """A module called: its forward ran, and the hooks registered here on it, or on a layer it
        holds, run on their outputs."""
        forwarded(module, state)
        hooked = state.get(HOOKED)
        if not hooked:
            return
        held = self.module_storages(module) | storages_held(module)
        for storage, hook, fed, closure in sorted(hooked, key=str):
            # a hook on the module or on a layer it holds (``model[0]`` of a chain a caller passed)
            if storage in held or type(storage) is tuple and storage[:1] == ("item",) and storage[1] in held:
                self.run_hook(module, hook, fed, node, state, closure)
                writer = _next_layer_writing(module, storage)
                if writer is not None and not self.replaces_output(hook):
                    # ``nn.ReLU(inplace=True)`` after the hooked layer writes the output it saw,
                    output = frozenset((_site(node),))  # inside the chain, before the chain saved its output
                    saved = state.get(SAVED, EMPTY)
                    state[SAVED] = saved - output
                    self.write(node, Value(TENSOR, storages=output), state, node, method=writer.qual)
                    state[SAVED] = saved

    def replaces_output(self, hook: str) -> bool:
        """Whether a forward hook returns something, which the module hands on instead of its output."""
        summary = self.model.summary(self.model.functions_by_name[hook[6:]])
        return summary is None or summary.returns is not None and summary.returns.kinds != NONE.kinds

    def fed_by_parameters(self, layer_node, state: dict) -> bool:
        """Whether ``chain[i]`` is a layer of a chain (``nn.Sequential``) after one with
        parameters: what it is given is a graph tensor."""
        position = _constant(layer_node.slice) if type(layer_node) is ast.Subscript else None
        if type(position) is not int or position < 0 or place_of(layer_node.value) is None:
            return False  # evaluated once more below: only a name or attribute path, which runs nothing
        recording, self.recording = self.recording, False
        chain = self.evaluate(layer_node.value, state)
        self.recording = recording
        layers = chain.items or ()
        if "module_chain" not in k.role_of("function", chain.qual) or any(key == "*" for key, _ in layers):
            return False
        return any("parameter_free" not in layer.facts for _, layer in layers[:position])

    def encloses(self, function, name: str) -> bool:
        """Whether ``name`` in ``function``'s body is the running function's own: it encloses
        ``function`` (a hook defined in it, or in a hook factory defined in it) and no function
        between binds ``name``."""
        current = function.parent
        while current is not None and current is not self.function:
            if name in current.bound_names or name in current.names:
                return False
            current = current.parent
        return current is self.function

    def handed_back(self, function, bound: int, returned: Optional[Value], result: Value, node, state: dict,
                    as_is: frozenset = EMPTY, container: bool = False, fresh: frozenset = EMPTY,
                    receiver_place: Optional[str] = None, tensors: frozenset = EMPTY) -> Value:
        """A call of a function that may return memory it did not allocate (an argument as it is,
        or an alias it made) makes that alias where the caller sees it: at the call, spelled with
        what the callee did (``transpose() in swap()``, ``f() returning its argument``), its
        source named as the caller names it (``bound``: how many values the call binds). The
        callee's own ids stay inside it. An argument that is an alias already (``as_is``: the
        aliases it was made as) comes back as that alias, not as one more. A container the
        callee filled with aliases it made (``return m.state_dict()``) holds them as items. A
        converter of what a caller passes (``torch.as_tensor(x)``) given a tensor there (``tensors``:
        the indices of those) returns that tensor: a move that did nothing, not an array's memory."""
        if returned is None:
            return result
        if not (result.is_tensor or "ndarray" in result.kinds):
            return self.handed_back_items(function, bound, returned, result, node, state)
        makers = [self.model.alias_makers[made] + (made,) for made in returned.made if made in self.model.alias_makers]
        # an alias another function made, that the callee reaches through its object (``return
        # self.power`` of ``self.power = t.numpy()`` in ``attach``): the same alias, not one more
        elsewhere = frozenset(maker[3] for maker in makers if not inside(maker[0], function.node))
        if elsewhere:
            makers = [maker for maker in makers if maker[3] not in elsewhere]
            result = result._replace(made=result.made | elsewhere)
            returned = returned._replace(made=returned.made - elsewhere)
        # an argument handed back as it is, unless it was a temporary no one else holds (``fresh``)
        passed = [index for index in map(lambda storage: parameter_index(storage, function.name), returned.storages)
                  if index is not None and not container and index not in fresh]
        if not makers and not passed:
            attribute = _attribute_returned(self.model, function, returned) if receiver_place and not container else None
            if attribute is None:
                return result
            # ``before = store.current()`` of ``return self.state``: the object's own tensor, a handle
            return self.aliased(node, node, result, "handed", f"{_called_name(function, node)}() returning "
                                f"self.{attribute}", state, source_place=f"{receiver_place}.{attribute}")
        if not makers and as_is:
            return result._replace(made=result.made | as_is)
        value = result._replace(made=result.made - returned.made)
        if makers:
            crossing = [maker for maker in makers if maker[3][2] in _CROSSING_KINDS]
            inner, op, source, made = max(crossing or makers, key=lambda maker: (maker[0].end_lineno,
                                                                                 maker[0].end_col_offset))
            if source is None:  # ``t.detach().cpu().numpy()``: named by the chain's innermost named place
                source = next((maker[2] for maker in sorted(makers, key=lambda maker: (
                    maker[0].end_lineno, maker[0].end_col_offset)) if maker[2] is not None), None)
            kind, op = made[2], f"{op} in {_called_name(function, node)}()"
            if kind == "from_numpy" and op.startswith(tuple(qual + "()" for qual in _SHARING_CONVERTERS)) and any(
                    parameter_index(storage, function.name) in tensors for storage in returned.storages):
                kind = "move"
        else:
            kind, op, source = "assignment", f"{_called_name(function, node)}() returning its argument", function.names[
                passed[0]]
        value = self.aliased(node, node, value, kind, op, state,
                             source_place=_in_caller(function, node, bound, source), in_container=container)
        if self.model.alias_makers.get((node.lineno, node.col_offset, kind), (None, None, ""))[2] is None:
            self.model.held_by_callee.add(((node.lineno, node.col_offset, kind), op))
        return value

    def handed_back_items(self, function, bound: int, returned: Value, result: Value, node, state: dict) -> Value:
        """The items of a container a call returns where one operation made the container and
        the aliases in it (``return m.state_dict()``, ``return t.chunk(2)``): that alias, made
        where the caller sees it. A container the callee built of aliases (``return t.detach(),
        n``) leaves each its own, reported where it is made."""
        if not result.items or not returned.items or not any(
                made in self.model.container_aliases for _, item in returned.items for made in item.made):
            return result
        by_key = dict(returned.items)
        return result._replace(items=tuple(
            (key, self.handed_back(function, bound, by_key.get(key), item, node, state, container=True))
            for key, item in result.items))

    # ----- aliases (TEN2xx)
    def aliased(self, node, source_node, value: Value, kind: str, op: str, state: dict,
                source_place: Optional[str] = None, in_container: bool = False) -> Value:
        """``value`` shares its storages with ``source_node``'s value (or the place
        ``source_place``), made by ``node`` (spelled ``op``): tagged with the operation's id and
        recorded as an ``alias`` event; ``in_container``: the operation hands its aliases out
        as the items of a new container (``t.chunk(2)``, ``m.state_dict()``)."""
        if not value.storages or state is None:
            return value
        made = (node.lineno, node.col_offset, kind)
        if kind in _WHOLE_OF_ITS_SOURCE:  # ``buf[:k].reshape_as(a)``: the view spans the part it was made of
            parts = {self.model.view_parts[earlier] for earlier in value.made if earlier in self.model.view_parts}
            if len(parts) == 1:
                self.model.view_parts[made] = parts.pop()
        value = value._replace(made=value.made | {made})
        source = place_of(source_node) if source_place is None else source_place
        self.model.alias_makers[made] = (node, op, source)
        if in_container:
            self.model.container_aliases.add(made)
        # ``torch.clone(g).detach()``: the source is new memory no name holds, so only the alias does
        fresh_source = source is None and id(source_node) in self.fresh_nodes
        self.record("alias", node, source, value, state, made=made, operation=kind, op=op, in_container=in_container,
                    source_node=source_node, fresh_source=fresh_source)
        return value

    def assigned(self, expression, value: Value, state: dict, kept_past_the_call: bool = False) -> Value:
        """``y = x`` of a tensor or an array: one object under two names (an alias made by
        assignment); so is ``y = getattr(m, "w")``. Not ``y = xs[0]``: an item bound to a name is
        mostly a handle the code writes through on purpose (``exp_avg = state["exp_avg"]``).
        ``kept_past_the_call``: a summary's ``self.start = pos`` (or ``BEST = v`` under ``global``) of
        a parameter callers decide, an alias where they pass a tensor, as the class's other methods
        (or the module) see it."""
        here = (expression.lineno, expression.col_offset)
        if any(made[:2] == here for made in value.made):  # ``w.data``, ``w.T``, ``w[0]``: made by the expression itself
            return value
        if _constant_getattr(expression):  # named as the attribute it reads
            place = place_of(expression.args[0])
            if place is not None and (value.is_tensor or "ndarray" in value.kinds):
                return self.aliased(expression, expression, value, "assignment", "assignment", state,
                                    source_place=f"{place}.{expression.args[1].value}")
            return value
        if type(expression) in (ast.Name, ast.Attribute) and (
                value.is_tensor or "ndarray" in value.kinds or kept_past_the_call and value.kind_from):
            return self.aliased(expression, expression, value, "assignment", "assignment", state)
        return value

    def shared(self, qual: str, node, first: Value, state: dict) -> Value:
        """``torch.from_numpy(a)``, ``torch.as_tensor(x)``, ``np.asarray(t)``: the argument's
        memory under the other library's type (a tensor given to ``as_tensor`` is itself)."""
        to_array = qual.startswith("numpy.")
        if "array_only" in k.role_of("function", qual) and first.kinds == UNKNOWN.kinds and not self.summary_mode:
            first = self.array_by_use(node.args[0], first, state)
        if to_array and _is_array(first):  # ``np.asarray(a)`` of an array is the array itself
            return first._replace(fresh=False)
        if to_array and first.is_tensor:
            value = first._replace(kinds=kinds("ndarray"), grad=False, graph=False, fresh=False, kind_from=EMPTY)
            return self.aliased(node, node.args[0], value, "numpy", "np.asarray()", state)
        # ``torch.from_numpy(a)``, ``torch.as_tensor(a)`` of a parameter in a summary: what a caller passes
        # decides (an array or a tensor it shares; a list it copies, where the call site knows it)
        symbolic = self.summary_mode and first.kinds == UNKNOWN.kinds and (
            "array_only" in k.role_of("function", qual) or qual in _SHARING_CONVERTERS and first.kind_from)
        if not to_array and ("ndarray" in first.kinds or symbolic and first.storages):
            value = first._replace(kinds=TENSOR, fresh=False, why=_why(Evidence.TORCH_API, "kind"), kind_from=EMPTY)
            return self.aliased(node, node.args[0], value, "from_numpy", qual + "()", state)
        if qual == "copy.copy" and (first.is_tensor or _held_item(first) or _tensor_of_parameter(first)):
            return self.aliased(node, node.args[0], first._replace(fresh=False), "shallow_copy", "copy.copy()", state)
        if qual == "copy.copy" and first.kinds == UNKNOWN.kinds and (first.kind_from or self.held_by_a_parameter(first)):
            # in a summary, of what a caller passes or an item of it: a tensor there shares its memory,
            # a call passing arrays or numbers gets a copy of its own (``shallow_copies``)
            return self.aliased(node, node.args[0], first._replace(fresh=False, facts=first.facts | {SHALLOW_OF_PASSED}),
                                "shallow_copy", "copy.copy()", state)
        if qual == "copy.copy":  # a new object of the same kind holding the same items (``copy.copy(kwargs)``)
            return first._replace(storages=frozenset((_site(node),)), fresh=True, made=EMPTY)
        if not to_array and first.is_tensor:
            return self.aliased(node, node.args[0], first._replace(fresh=False), "move", qual + "()", state)
        kind = kinds("ndarray") if to_array else TENSOR
        return Value(kind, storages=frozenset((_site(node),)), fresh=True, why=_why(Evidence.TORCH_API, "kind"))

    def array_by_use(self, node, value: Value, state: dict) -> Value:
        """An unknown value given to a function that takes only an ndarray (``torch.from_numpy``):
        an array from here on, by use."""
        value = _named_from_here(value._replace(kinds=ARRAY, why=_why(Evidence.USE, "kind")), node)
        place = place_of(node)
        if place is not None and "[" not in place and place in state:
            _proved(place, value, state)
        return value

    # ----- NumPy arrays (TEN201/TEN202: an array and a tensor may share memory)
    def array_method(self, receiver: Value, method: str, receiver_node, arguments, keywords, node, state) -> Value:
        """A method of a NumPy array: ``a.sort()``, ``a.fill(v)`` write it in place; ``a.reshape(...)``
        views its memory; ``a.copy()``, ``a.astype(t)`` make a new array (``astype(t, copy=False)``
        may return ``a`` itself); any other reads it."""
        roles = k.role_of("method", method)
        copies = "array_copy" in roles and _constant(_keyword(node, "copy")) is not False
        if "array_inplace" in roles:
            self.write(receiver_node, receiver, state, node, method=method)
            result = NONE
        elif "array_view" in roles or "array_copy" in roles and not copies:
            result = self.aliased(node, receiver_node, receiver._replace(fresh=False, items=None), "array_view",
                                  method + "()", state)
        elif copies:  # the dtype it is given (``astype(numpy.float16)``), else the array's own (``copy()``)
            given = node.args[0] if node.args else _keyword(node, "dtype")
            dtype = _given_dtype(given) if given is not None else dtype_of(receiver)
            result = new_array(node)._replace(facts=_dtype_fact(dtype))
        else:
            return self.unknown_call(arguments, keywords, node, state, method)
        self.record("call", node, None, result, state, callee=method, arguments=tuple(arguments), keywords=keywords)
        return result

    def array_function(self, qual: str, roles, node, first: Value, keywords, state, operands=()) -> Optional[Value]:
        """A NumPy function: its ``out=`` array is written in place and handed back
        (``np.add(a, 1, out=a)``); a constructor (``np.zeros``, ``np.array``, ``np.stack``) makes
        a new array; None where the model knows nothing of it."""
        out = keywords.get("out")
        if out is not None and _is_array(out) and "inplace" in k.role_of("syntax", "out="):
            self.write(_keyword(node, "out"), out, state, node, method=qual)
            return out._replace(fresh=False)
        if "array_elementwise" in roles and _is_array(first):
            given = _keyword(node, "dtype")
            if given is not None:  # ``numpy.sin(a, dtype=numpy.float32)``
                return new_array(node)._replace(facts=_dtype_fact(_given_dtype(given)))
            return self.elementwise_array(qual, node, first, operands[1:])
        if "array_constructor" not in roles:
            return None
        size_at = k.RANDOM_DRAW_SIZE_AT.get(qual)
        if size_at is not None and len(node.args) <= size_at and _keyword(node, "size") is None:
            if qual in k.RANDOM_DRAWS_FROM and first.kinds != INTEGER.kinds:
                return None  # ``rng.choice(pairs)``: one item of an array, a row where it has two dimensions
            return NUMBER  # ``numpy.random.uniform(0.8, 1.2)``: one number drawn
        given = _dtype_argument(node, qual)
        if given is None and qual in k.ARRAYS_OF_DATA and node.args and _float_literals(node.args[0]):
            dtype = "float64"  # ``numpy.array([0.0, 0.5])``: Python floats make a float64 array
        elif given is None and qual in k.RANGES_OF_NUMBERS and operands:  # ``numpy.arange(n)``: int64 of integers
            dtype = "int64" if all(value.kinds == INTEGER.kinds for value in operands) else "float64" if all(
                value.kinds <= _NUMERIC for value in operands) else ""
        elif given is None:
            dtype = "float64" if qual in k.FLOAT64_ARRAYS else ""
        else:
            dtype = _given_dtype(given)
        return new_array(node)._replace(facts=_blank(qual) | ({"dtype:" + dtype} if dtype else EMPTY))

    @staticmethod
    def elementwise_array(qual: str, node, first: Value, others) -> Optional[Value]:
        """``numpy.sin(a)``: a new array of a's floating dtype, of an unknown one where a's is unknown,
        of the float NumPy computes an integer array in (``numpy.sin`` of int64: float64); None where
        NumPy's promotion with another array, or of integers kept as integers, decides."""
        dtype = dtype_of(first)
        if any(_is_array(other) and dtype_of(other) != dtype for other in others):
            return None  # ``numpy.maximum(a32, b64)``: float64
        if dtype and dtype not in k.FLOATING_DTYPES:
            dtype = k.NUMPY_FLOAT_OF_INTEGERS.get(dtype, "") if qual in k.NUMPY_FLOAT_FUNCTIONS else ""
            if not dtype:
                return None
        return new_array(node)._replace(facts=_dtype_fact(dtype))

    def legacy_of_array(self, qual: str, node, array: Value, state: dict) -> Value:
        """``torch.FloatTensor(a)`` of an ndarray: its memory where the dtypes agree (or may),
        a new tensor where the array's known dtype is another."""
        known = dtype_of(array)
        if known and known != k.LEGACY_DTYPES[qual]:
            return Value(TENSOR, storages=frozenset((_site(node),)), fresh=True, why=_why(Evidence.TORCH_API, "kind"))
        value = array._replace(kinds=TENSOR, fresh=False, why=_why(Evidence.TORCH_API, "kind"), kind_from=EMPTY)
        return self.aliased(node, node.args[0], value, "from_numpy", qual + "()", state)

    def function_writes(self, qual: str, node, arguments, keywords, state: dict) -> None:
        """A torch function that writes a tensor in place: its first argument (``nn.init.zeros_(w)``,
        ``torch.sigmoid_(w)``, ``F.relu(w, inplace=True)``) or its ``out=`` tensor."""
        last = qual.rsplit(".", 1)[-1]
        if not qual.startswith("torch.") or k.role_of("function", qual) & {"inplace", "scales_grads"}:
            return  # (those write what the call's own branch says: the gradients, for ``clip_grad_norm_``)
        inplace = "inplace" in k.role_of("syntax", "inplace=True") and _constant(_keyword(node, "inplace")) is True
        if node.args and (last.endswith("_") and not last.endswith("__") or inplace):
            self.write(node.args[0], arguments[0], state, node, method=qual)
            out_of_place = qual[:-1] if last.endswith("_") else qual
            if "output" in (k.SAVED_FOR_BACKWARD.get(out_of_place) or ()):
                # ``torch.sigmoid_(h)``, ``F.relu(h, inplace=True)`` keep their result: the tensor written
                self.save(qual, (), arguments[0], state, node, saved=("output",))
        if "out" in keywords and keywords["out"].storages:
            self.write(_keyword(node, "out"), keywords["out"], state, node, method=qual)

    def training_writes(self, name: str, arguments, node, state: dict) -> None:
        """A call the model cannot see into whose name says it trains (``train_one_epoch(model,
        ...)``, ``trainer.fit(model)``: the project's conventions) writes the parameters of the
        modules it is given, as a training write (weak evidence: what snapshots follow)."""
        if not name or not training_call(name.rsplit(".", 1)[-1]):
            return
        for value in arguments:
            if "module" in value.kinds and value.storages:
                self.write(node, value._replace(storages=self.module_storages(value)), state, node, training=True)

    def steps_parameter(self, optimizer: Value, state: dict) -> None:
        """``opt.step()`` on a parameter, in a summary: each call site's optimizer writes the
        tensors it holds there."""
        state["!steps"] = NONE
        indices = {parameter_index(storage, self.function.name) for storage in optimizer.storages} - {None}
        state["!stepped"] = state.get("!stepped", EMPTY) | indices

    def step_writes(self, optimizer: Value, node, state: dict) -> None:
        """``opt.step()`` writes in place the parameters the optimizer was built from."""
        parameters = optimizer.all_items() if "optimizer" in optimizer.kinds else None
        if parameters is not None and parameters.storages:
            self.write(node, parameters, state, node)

    def module_storages(self, module: Value) -> frozenset:
        """The storages of a module's tensors: its own, and those of the submodules and
        parameters an instance of a class of the file keeps, those a base class of the file
        built included (``self.fc = nn.Linear(...)``: ``model.parameters()`` holds
        ``model.fc.weight``)."""
        storages, seen, pending = set(module.storages), set(), [module]
        while pending:
            owner = pending.pop()
            for kind in owner.kinds:
                info = self.model.classes.get(kind[7:]) if kind.startswith("object:") else None
                if info is None or (kind, owner.storages) in seen or len(seen) > _NESTED_MODULES:
                    continue
                seen.add((kind, owner.storages))
                for holder in info.lineage(self.model.classes):
                    if holder is not info:
                        self.model.read_class(holder)
                    for name, value in holder.attributes.items():
                        value = _per_instance(holder, owner, name, value)
                        if "module" in value.kinds:
                            storages.update(value.storages)
                            pending.append(value)
                        elif value.is_tensor and value.grad and not value.graph:  # an nn.Parameter
                            storages.update(value.storages)
        return frozenset(storages)

    def bound_since_entry(self, module_node, state: dict) -> frozenset:
        """The storages of the sub-modules and parameters the running function bound on a module
        (``self.net = nn.Linear(...)`` earlier in ``__init__``): its ``parameters()`` hold them,
        though the class's attributes are known only once the method is solved."""
        owner = place_of(module_node)
        if owner is None or "[" in owner:
            return EMPTY
        found = set()
        for place, value in state.items():
            if type(value) is not Value or not place.startswith(owner + ".") or "." in place[len(owner) + 1:]:
                continue
            if "module" in value.kinds:
                found.update(self.module_storages(value))
            elif value.is_tensor and value.grad and not value.graph:  # an nn.Parameter
                found.update(value.storages)
        return frozenset(found)

    def load_state(self, module: Value, loaded: Value, node, state: dict) -> Value:
        """``m.load_state_dict(sd)`` copies ``sd``'s values into the module's tensors: a write of
        them, unless ``sd`` holds those very tensors (the module's own ``state_dict()``, perhaps
        updated with other values: what it already holds is copied onto itself). Either way a
        ``load`` event that says what the module takes back."""
        weights = Value(TENSOR, storages=self.module_storages(module), why=_why(Evidence.MODULE_CALL, "kind"))
        held = (loaded.all_items() if loaded.items else loaded) or UNKNOWN
        own = bool(held.storages & weights.storages)
        if weights.storages and not own:
            self.write(node, weights, state, node)
        self.record("load", node, place_of(node.func.value), held, state, weights=weights.storages)
        return UNKNOWN

    def feeds_gradients(self, module: Value, state: dict) -> None:
        """A module called: its parameters get gradients from a backward later on the path."""
        parameters = _module_tensors(module._replace(storages=self.module_storages(module)), "parameters")
        state[CALLED_MODULES] = state.get(CALLED_MODULES, EMPTY) | parameters.item("*").storages

    def writes_gradients(self, bases: Optional[frozenset], node, state: dict) -> None:
        """A call that writes gradients in place (a backward adding into those that exist,
        ``zero_grad(set_to_none=False)``, gradient clipping): those of the tensors holding
        ``bases`` (None: of any tensor) that some place holds."""
        held = held_gradients(state, bases)
        if held:
            self.write(node, Value(TENSOR, storages=held, why=_why(Evidence.TORCH_API, "kind")), state, node)

    def gradient_bases(self, node: ast.Attribute, base: Value, state: dict) -> frozenset:
        """What the gradient ``node`` (``<tensor>.grad``) is keyed on: the tensor's storages, or, for a
        parameter read from a module that holds it as its own storage (``model.weight`` of an
        ``nn.Linear``: every parameter is the module's storage), the path ``("attribute", module,
        "weight")``, so that ``model.weight.grad`` and ``model.bias.grad`` are two objects."""
        tensor = node.value
        # (not in a summary: a caller maps a parameter's storage, not one nested in it)
        if type(tensor) is ast.Attribute and not self.summary_mode:
            owner_place = place_of(tensor.value)
            owner = state.get(owner_place) if owner_place is not None else None
            if type(owner) is Value and "module" in owner.kinds and owner.storages & base.storages:
                return frozenset(held_within("attribute", storage, tensor.attr) for storage in base.storages)
        return base.storages

    def backward_gradients(self, node, inputs: Optional[Value], state: dict) -> None:
        """A backward's effect on the gradients held: it adds into them in place, but with
        ``create_graph=True`` it replaces each by a new tensor (``grad = grad + new``): what is
        held then keeps the old values, as after ``zero_grad()``. ``inputs``: the value of its
        ``inputs=`` (``backward(inputs=[x])``: the gradients of those tensors only)."""
        given = _tensors_in(inputs) if inputs is not None else None
        reached = given.storages if given is not None and given.storages else None
        if _creates_graph(node):
            drop_gradients(held_gradients(state, reached), node, state)
        else:
            self.writes_gradients(reached, node, state)

    def clears_gradients(self, bases: Optional[frozenset], node, state: dict) -> None:
        """``zero_grad()``: with ``set_to_none=False`` it zeroes the gradients in place; by
        default it drops them, so a gradient held (``g = p.grad``) stays as it was, and the
        next backward makes a new one: what is held is renamed ``("dropped", grad, site)``."""
        given = node.args[0] if node.args else _keyword(node, "set_to_none")
        if given is not None and _constant(given) is False:
            self.writes_gradients(bases, node, state)
        else:
            drop_gradients(held_gradients(state, bases), node, state)  # (a summary's drop: ``method_call``)

    def steps_unseen_optimizer(self, node, state: dict) -> None:
        """``opt.step()`` on what may be an optimizer the model cannot see into (a parameter
        nobody in the file passes, ``self.opt`` of unknown origin), after a backward: an
        optimizer steps exactly the parameters that got gradients, those of the modules called
        before that backward (a scheduler, known by its constructor, is not one)."""
        stepped = state.get(BACKPROPAGATED, EMPTY)
        if stepped:
            self.write(node, Value(TENSOR, grad=True, storages=stepped, why=_why(Evidence.MODULE_CALL, "kind")),
                       state, node)


_MODULE_TENSORS = frozenset(("parameters", "buffers", "named_parameters", "named_buffers"))
_SUBMODULE_METHODS = frozenset(("children", "modules", "named_children", "named_modules"))
_MODULE_DICT = "torch.nn.ModuleDict"
_MODULE_SEQUENCES = frozenset(("torch.nn.ModuleList", "torch.nn.Sequential"))


ENVIRONMENT = "closure:"  # a fact of a function value: ``closure:store=acts``, an enclosing name is a caller's place


def environment_of(function: Value) -> frozenset:
    """The ``closure:`` facts of a function value (what its factory's parameters name)."""
    return frozenset(fact for fact in function.facts if fact.startswith(ENVIRONMENT))


def private(function) -> bool:
    """A function only the file calls, by convention: a ``_name`` (not a dunder) or a nested
    function; the file's call sites are all its callers."""
    name = getattr(function.node, "name", "")
    parent = function.parent
    nested = parent is not None and type(parent.node) in (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
    return name.startswith("_") and not name.endswith("__") or nested


def submodule(container: Value) -> Value:
    """A layer a module holds (``for block in blocks``, ``heads.values()``, ``m.children()``):
    one of the layers it was built with where the file built it, else a module of its own the
    container holds, known as surely as the container is (an annotation: weak evidence)."""
    if container.items is not None:
        found = items_join(container)
        return found if found is not None else UNKNOWN
    return Value(kinds("module"), grad=True, storages=frozenset(held_within("item", storage) for storage in container.storages),
                 why=tuple(pair for pair in container.why if pair[0] == "kind"))
# the parameters of a module a caller passed in: any two such modules may be one model, so a
# write to one's parameters (an optimizer step in another function) may write the other's
CALLERS_PARAMETERS = ("parameters", "of a caller's module")


GRADIENT = "grad"


def gradients_of(storages: frozenset, node) -> frozenset:
    """The memory of the ``.grad`` of a tensor holding ``storages``: an object the tensor holds,
    the same at every read (``held_within``), or past that nesting a new one at this site."""
    return frozenset(held if held != storage else _site(node) for storage in storages
                     for held in (held_within("attribute", storage, GRADIENT),))


def is_gradient(storage) -> bool:
    """A tensor's gradient memory (``p.grad``: ``("attribute", storage, "grad")``)."""
    return type(storage) is tuple and len(storage) == 3 and storage[0] == "attribute" and storage[2] == GRADIENT


def held_gradients(state: dict, bases: Optional[frozenset] = None) -> frozenset:
    """The gradient memory some place holds, of the tensors holding ``bases`` (None: any)."""
    found = set()
    for value in state.values():
        if type(value) is Value and (value.storages or value.items):
            found.update(storage for storage in storages_held(value)
                         if is_gradient(storage) and (bases is None or storage[1] in bases or (
                             type(storage[1]) is tuple and storage[1][:1] == ("attribute",) and storage[1][1] in bases)))
    return frozenset(found)


def drop_gradients(dropped: frozenset, node, state: dict) -> None:
    """The tensors' gradients are dropped (``zero_grad()``, ``p.grad = None``): what holds
    them keeps a tensor no backward fills again."""
    if not dropped:
        return
    renamed = {storage: ("dropped", storage, _site(node)) for storage in dropped}
    for place, value in list(state.items()):
        if type(value) is Value and storages_held(value) & dropped:
            state[place] = _renamed(value, renamed)


def _module_tensors(module: Value, method: str) -> Value:
    """``m.parameters()`` / ``m.named_parameters()``: the module's tensors (its storages), as
    items or as ``(name, tensor)`` pairs."""
    storages = module.storages
    if not any(type(storage[0]) is int for storage in storages):  # not built in the file
        storages = storages | {CALLERS_PARAMETERS}
    weight = Value(TENSOR, grad=method.endswith("parameters") and FROZEN not in module.facts, storages=storages,
                   why=_why(Evidence.MODULE_CALL, "kind"),
                   facts=dtype_facts(module))
    if method.startswith("named_"):
        weight = Value(kinds("tuple"), items=(("0", STRING), ("1", weight)))
    return Value(kinds("list"), items=(("*", weight),))


def _held_parameters(kind: str, params: Value):
    """What an optimizer holds: the tensors it is built from (``model.parameters()``, a list of
    them, parameter groups: dicts whose ``"params"`` hold them)."""
    if kind != "optimizer":
        return None
    parameters = _tensors_in(params)
    return (("*", parameters),) if parameters is not None else None


def _tensors_in(value: Value) -> Optional[Value]:
    """The join of the tensors ``value`` is or holds, at any depth."""
    if value.is_tensor:
        return value
    found = None
    for _, item in value.items or ():
        tensor = _tensors_in(item)
        if tensor is not None:
            found = tensor if found is None else join(found, tensor)
    return found


def _made_by_arguments(call: ast.Call, value: Value) -> frozenset:
    """The aliases ``value`` is that an argument expression of ``call`` made itself
    (``scale_(w.data, 2.0)``): no place holds them and the call's result goes unused, so the
    helper's write through one is the call's purpose, as a method's on its receiver chain
    (``w.data.mul_(2.0)``)."""
    spots = {(argument.lineno, argument.col_offset) for argument in call.args + [keyword.value for keyword in call.keywords]}
    return frozenset(made for made in value.made if made[:2] in spots)


def _attribute_of_parameter(base: Value, name: str) -> Value:
    """``me.weight`` of a parameter the model knows nothing of, or of what a constructor was
    handed and its object keeps (``self.model.weight`` of ``self.model = model``): an object of
    its own that the caller still holds through the parameter (a storage per path), so that an
    alias of it and a write through that alias relate, and a call site maps it to its own."""
    if "?" not in base.kinds or not base.storages or not all(
            type(storage) is tuple and storage[:1] in (("param",), (HANDED,)) for storage in base.storages):
        return UNKNOWN
    return Value(kinds("?"), storages=frozenset(held_within("attribute", storage, name) for storage in base.storages))


ARRAY = kinds("ndarray")


PY_CONTAINERS = kinds("list", "tuple", "dict")
SEQUENCES = kinds("list", "tuple")
_SHARING_CONVERTERS = frozenset(("torch.as_tensor", "torch.asarray"))  # an array's or a tensor's memory, a list's copy
_PLAIN_DATA = PY_CONTAINERS | kinds("number", "int", "bool", "str", "none")  # no memory a tensor write reaches
_UNROLLED_AT_MOST = 8  # a comprehension over a literal of more elements keeps one ``[*]`` item


def _read_place(node) -> Optional[str]:
    """The place an expression reads: ``d.get(k, 0)`` reads ``d[k]`` (its default stands in
    for an item not there yet, as ``0`` does for a running total)."""
    if type(node) is ast.Call and type(node.func) is ast.Attribute and node.func.attr == "get" \
            and 1 <= len(node.args) <= 2 and not node.keywords and place_of(node.func.value) is not None:
        return f"{place_of(node.func.value)}[{key_of(node.args[0])}]"
    return place_of(node)


def _array_only(value: Value) -> bool:
    """A tensor or an array, never a Python container: its ``[i] = v`` writes its memory."""
    return (value.is_tensor or "ndarray" in value.kinds) and not value.kinds & PY_CONTAINERS


def renew_saved(storages: frozenset, state: dict) -> None:
    """New memory made at sites whose earlier memory autograd saved (``x = block(x)`` in a
    loop saved the last ``x`` as its input): what the state holds of those sites, the saved
    set included, is the earlier memory, renamed ``("earlier", site)``; the new value is not
    saved (recency: only the newest allocation of a site is its own object)."""
    if not storages:
        return
    earlier = {storage: ("earlier", storage) for storage in storages}
    state[SAVED] = frozenset(earlier.get(storage, storage) for storage in state[SAVED])
    if UNSAVED_HOLDERS in state:  # which holders were not saved is not carried to the renamed memory
        state[UNSAVED_HOLDERS] = frozenset(pair for pair in state[UNSAVED_HOLDERS] if pair[1] not in earlier)
    for place, value in list(state.items()):
        if type(value) is Value and storages_held(value) & storages:
            state[place] = _renamed(value, earlier)


@contextmanager
def _grad_off(state: dict, why: str):
    """Grad mode off on this path while the block runs (as ``torch.no_grad()`` would), then as before."""
    outer = state.get(NO_GRAD)
    state[NO_GRAD] = (outer or EMPTY) | {why}
    try:
        yield
    finally:
        if outer is None:
            state.pop(NO_GRAD, None)
        else:
            state[NO_GRAD] = outer


def _kept_for_backward(state: dict) -> bool:
    """Whether what an operation saves here is kept for a backward that may run: not under
    ``torch.no_grad()``, not on a path only inference takes."""
    return not state.get(NO_GRAD) and not state.get(INFERENCE)


GRAD_OFF = "grad_off"  # in INFERENCE: grad mode is off on the path (a test of it), not only the module's eval mode


def inference_only(state: dict, why: str = "inference") -> None:
    """A path where grad mode is off (``if not torch.is_grad_enabled():``, ``why`` GRAD_OFF:
    what was computed before in the function was computed so too), or the eval branch of a
    function running no backward: what was saved before is saved for no backward that runs
    here, and nothing computed here is kept."""
    state[INFERENCE] = state.get(INFERENCE, EMPTY) | {why}  # a set, as the other state keys hold
    eval_branch(state)


def _runs_a_backward(model, function) -> bool:
    """Whether ``function`` runs a backward itself (``loss.backward()``, ``torch.autograd.grad``:
    role ``backward``; test-time adaptation in an eval branch): there what the branch computes is
    recorded for it."""
    if function.runs_a_backward is None:
        function.runs_a_backward = any(type(node) is ast.Call and "backward" in (
            k.role_of("method", node.func.attr) if type(node.func) is ast.Attribute else frozenset())
            | k.role_of("function", model.qualify(place_of(node.func) or "")) for node in descendants(function.node))
    return function.runs_a_backward


def eval_branch(state: dict) -> None:
    """A path the module takes only in eval mode (``if not self.training:``): code written for
    inference, so what was saved before it is taken as saved for no backward (a convention:
    eval-mode backward, as with frozen norms or saliency maps, is not checked there)."""
    state.pop(SAVED, None)
    state.pop(UNSAVED_HOLDERS, None)


def add_saved(storages: frozenset, state: dict) -> None:
    """Autograd saved ``storages`` on this path: every place holding them now holds saved memory."""
    state[SAVED] = state.get(SAVED, EMPTY) | storages
    if UNSAVED_HOLDERS in state:
        state[UNSAVED_HOLDERS] = frozenset(pair for pair in state[UNSAVED_HOLDERS] if pair[1] not in storages)


def _hold_unsaved_as(source: str, place: str, state: dict) -> None:
    """``g = h``: ``g`` names what ``h`` does, so it holds saved memory only where ``h`` holds it
    (after ``if gated: h = skip + gate(h)``, neither holds the gate's input where it was saved)."""
    pairs = state.get(UNSAVED_HOLDERS, EMPTY)
    named = frozenset((place, storage) for holder, storage in pairs if holder == source)
    if named and place.isidentifier():
        state[UNSAVED_HOLDERS] = pairs | named


def saved_through(place: Optional[str], value: Value, state: dict) -> frozenset:
    """What of ``value``'s memory autograd saved, but for what ``place`` holds only on paths
    that did not save it."""
    saved = value.storages & state.get(SAVED, EMPTY)
    if saved and place is not None and UNSAVED_HOLDERS in state:
        saved = saved - frozenset(storage for holder, storage in state[UNSAVED_HOLDERS] if holder == place)
    return saved


def release_saved(storages: frozenset, state: dict) -> None:
    """Saved memory no place holds any more (``buf = new_buffer()`` dropped the last name of
    the one a layer saved) can never be written again: it leaves the saved set."""
    held = frozenset().union(*(storages_held(value) for value in state.values() if type(value) is Value))
    unheld = storages - held
    if unheld:
        state[SAVED] = state[SAVED] - unheld


def _renamed(value: Value, names: dict) -> Value:
    items = tuple((key, _renamed(item, names)) for key, item in value.items) if value.items is not None else None
    return value._replace(storages=frozenset(names.get(storage, storage) for storage in value.storages), items=items)


def _indexed_whole(node) -> Optional[str]:
    """The place ``x`` of a sliced expression ``x[:k, :k]`` (a slice or several dimensions: no
    list or dict item; ``d[k]`` says nothing of ``d``), else None."""
    if type(node) is not ast.Subscript or not (type(node.slice) is ast.Slice or _indexes_dimensions(node.slice)):
        return None
    return place_of(node.value)


def _indexes_dimensions(index) -> bool:
    """An index only arrays take (several dimensions, ``...``): no list or dict item is stored."""
    return type(index) is ast.Tuple and any(type(element) is ast.Slice or type(element) is ast.Constant
                                            and element.value is Ellipsis for element in index.elts) or \
        type(index) is ast.Constant and index.value is Ellipsis


def _is_array(value: Value) -> bool:
    """A NumPy array (maybe something else too, never a tensor)."""
    return "ndarray" in value.kinds and not value.is_tensor


def new_array(node) -> Value:
    """A NumPy array made at ``node``, held by no one else."""
    return Value(ARRAY, storages=frozenset((_site(node),)), fresh=True, why=_why(Evidence.TORCH_API, "kind"))


def dtype_named(dotted: str) -> str:
    """``float32`` for ``torch.float32`` or ``np.float32``: a dtype the knowledge names, else ""."""
    package, _, last = dotted.rpartition(".")
    if package.split(".")[0] == "torch" and last in k.DTYPE_ALIASES:
        return k.DTYPE_ALIASES[last]
    if package and last in k.NUMPY_DTYPE_ALIASES:  # ``np.double``, however the file names NumPy
        return k.NUMPY_DTYPE_ALIASES[last]
    if package in ("", "builtins") and last in k.PYTHON_DTYPES:  # ``dtype=float``: float64, in NumPy and torch
        return k.PYTHON_DTYPES[last]
    return last if last in k.DTYPES else ""


def _dtype_or_device(node) -> bool:
    """``x.dtype`` or ``x.device``: what a narrowing test compares."""
    return type(node) is ast.Attribute and node.attr in ("dtype", "device")


def dropped_facts(value: Value) -> frozenset:
    """The ``dropped@`` facts of a value computed from a detached read of a tensor requiring grad."""
    return frozenset(fact for fact in value.facts if fact.startswith(DROPPED))


def dtype_facts(value: Value) -> frozenset:
    return frozenset(fact for fact in value.facts if fact.startswith("dtype:"))


def dtype_of(value: Value) -> str:
    """The one dtype known for ``value`` (``x.dtype == torch.uint8`` held, a layer's parameters), else ""."""
    known = dtype_facts(value)
    return next(iter(known))[6:] if len(known) == 1 else ""


def with_dtype(value: Value, dtype: str) -> Value:
    return value._replace(facts=value.facts - dtype_facts(value) | {"dtype:" + dtype})


def _dtype_fact(dtype: str) -> frozenset:
    return frozenset(("dtype:" + dtype,)) if dtype else EMPTY


_DTYPE_BOOL = _dtype_fact("bool")


def _given_dtype(given) -> str:
    """The dtype a ``dtype=`` argument names (``torch.long``, ``"float32"``), else ""."""
    return dtype_named(place_of(given) or "") or _constant_dtype(given)


def result_dtype(name: str, node, arguments, keywords: dict, default: str = "") -> str:
    """The dtype a torch function's (or tensor method's, ``torch.Tensor.<name>``) result surely
    has: its ``dtype=``, the knowledge table's (``torch.isnan``: bool), int64 for
    ``torch.arange`` of integers and for ``torch.full`` of an integer, bool for a ``full`` of a
    bool, ``default`` (the file's default dtype, "" where it sets one) for a factory of the
    default dtype and for ``arange``/``full`` of a float; else "" (one its operands' dtypes decide)."""
    given = _keyword(node, "dtype")
    if given is not None:
        return _given_dtype(given)
    if not _dtype_spelled_out(node):
        default = ""  # ``**options`` may carry a dtype
    if "out" in keywords:  # the result is ``out`` itself
        return dtype_of(keywords["out"])
    if name in k.RESULT_DTYPES:
        keyword, position = k.RESULT_DTYPE_UNLESS.get(name, ("", -1))
        deciding = _keyword(node, keyword) if keyword in keywords else (
            node.args[position] if 0 <= position < len(node.args) else None)
        if deciding is not None and not (type(deciding) is ast.Constant and deciding.value in (None, False)):
            return ""  # ``torch.bincount(x, weights)``: the weights' dtype (``weights=None`` decides nothing)
        return k.RESULT_DTYPES[name][0]
    if name == "torch.arange" and arguments and not keywords.keys() & {"start", "end", "step"} and all(
            value.kinds == INTEGER.kinds for value in arguments):
        return "int64"
    if name == "torch.arange" and any(_float_literal(argument) for argument in node.args):
        return default
    fill = arguments[1] if name == "torch.full" and len(arguments) > 1 else keywords.get("fill_value")
    if name == "torch.full" and fill is not None:
        filled = node.args[1] if len(node.args) > 1 else _keyword(node, "fill_value")
        return {INTEGER.kinds: "int64", BOOL.kinds: "bool"}.get(fill.kinds, default if _float_literal(filled) else "")
    return default if name in k.DEFAULT_DTYPE_FACTORIES else ""


def _dtype_spelled_out(node) -> bool:
    """No ``**mapping`` that may carry ``dtype=``: a missing ``dtype=`` means the default dtype."""
    return all(keyword.arg is not None for keyword in node.keywords)


def _float_literal(node) -> bool:
    """``0.5``, ``-1e-3``: a Python float spelled in the code."""
    while type(node) is ast.UnaryOp and type(node.op) in (ast.USub, ast.UAdd):
        node = node.operand
    return type(node) is ast.Constant and type(node.value) is float


def _float_literals(node) -> bool:
    """A list or tuple (nested too) of Python numbers spelled in the code, one a float at least:
    ``torch.tensor`` of it takes the default dtype."""
    numbers = []
    pending = [node]
    while pending:
        current = pending.pop()
        if type(current) in (ast.List, ast.Tuple):
            pending.extend(current.elts)
        elif _float_literal(current):
            numbers.append(True)
        elif type(current) is ast.Constant and type(current.value) is int:
            numbers.append(False)
        else:
            return False
    return any(numbers)


def _viewed_dtype(base: Value, method: str, node, arguments) -> frozenset:
    """The dtype facts of a view: its base's, but ``x.view(torch.int32)`` reinterprets the bytes
    as the dtype it names (one it cannot name: unknown), and ``view_as_real`` /
    ``view_as_complex`` change it."""
    if method in ("view_as_real", "view_as_complex"):
        return EMPTY
    if method == "view" and arguments and not all(value.kinds <= {"int", "tuple", "list"} for value in arguments):
        return _dtype_fact(dtype_named(place_of(node.args[-1]) or "") if node.args else "")
    return dtype_facts(base)


def _data_dtype(data: Value) -> str:
    """The dtype ``torch.tensor(data)`` takes from its data: a tensor's or an array's own, int64
    for Python ints (in lists and tuples too), bool for bools; "" for floats (the default dtype)."""
    if data.kinds <= {"tensor", "ndarray"}:
        return dtype_of(data)
    if data.kinds == INTEGER.kinds:
        return "int64"
    if data.kinds == BOOL.kinds:
        return "bool"
    if data.items and data.kinds <= {"list", "tuple"}:
        found = {_data_dtype(item) for _, item in data.items}
        return found.pop() if len(found) == 1 else ""
    return ""


def _arithmetic_dtype(op, left: Value, right: Value) -> str:
    """The dtype of ``a <op> b`` (or of a unary ``op a``, given ``a`` twice) where type promotion
    surely keeps one: tensors of one known dtype together, or with Python numbers of their
    category (an integer tensor with ints, a float tensor with any number), a bool tensor in a
    bitwise operation with bools; "" where the default dtype decides (``ids / 2``,
    ``ids * 0.5``) or a dtype is unknown."""
    tensors = {dtype_of(value) for value in (left, right) if value.is_tensor}
    numbers = [value.kinds for value in (left, right) if not value.is_tensor]
    if len(tensors) != 1 or "" in tensors or not all(found <= _NUMERIC for found in numbers) or any(
            "complex" in value.facts for value in (left, right)):
        return ""
    dtype = next(iter(tensors))
    if dtype in k.FLOATING_DTYPES:
        return dtype
    if dtype == "bool":
        bitwise = type(op) in (ast.BitAnd, ast.BitOr, ast.BitXor, ast.Invert)
        return dtype if bitwise and all(found == BOOL.kinds for found in numbers) else ""
    if dtype in k.DTYPES and not dtype.startswith("complex") and type(op) is not ast.Div:
        return dtype if all(found <= {"int", "bool"} for found in numbers) else ""
    return ""


def _array_arithmetic_dtype(left: Value, right: Value) -> str:
    """The floating dtype of NumPy arithmetic of arrays of that dtype and Python numbers (a Python
    number does not widen an array: ``t * 2.0`` of a float32 ``t`` is float32), else ""."""
    arrays = {dtype_of(value) for value in (left, right) if _is_array(value)}
    numbers = [value.kinds for value in (left, right) if not _is_array(value)]
    complex_number = any("complex" in value.facts for value in (left, right))
    floating = len(arrays) == 1 and next(iter(arrays)) in k.FLOATING_DTYPES
    return next(iter(arrays)) if floating and all(found <= _NUMERIC for found in numbers) and not complex_number else ""


def _tested_places(test) -> Optional[list]:
    """The places a dtype test narrows (``x.dtype != d``, ``x.is_floating_point()``, ``not``,
    ``and``/``or`` of them); None for any other expression."""
    kind = type(test)
    if kind is ast.UnaryOp and type(test.op) is ast.Not:
        return _tested_places(test.operand)
    if kind is ast.BoolOp:
        parts = [_tested_places(value) for value in test.values]
        return None if None in parts else [place for part in parts for place in part]
    if kind is ast.Compare and len(test.ops) == 1 and type(test.left) is ast.Attribute and test.left.attr == "dtype":
        place = place_of(test.left.value)
        return [place] if place is not None else None
    if kind is ast.Call and type(test.func) is ast.Attribute and test.func.attr == "is_floating_point":
        subject = test.args[0] if len(test.args) == 1 else test.func.value
        place = place_of(subject)
        return [place] if place is not None else None
    return None


METADATA = frozenset(("metadata",))  # a read's part: only the tensor's metadata (``x.shape``)


def _identity_compared(test) -> Optional[tuple]:
    """(left, right, whether the test says "the same") of ``a is b``, ``a is not b``, and of
    ``a.data_ptr() == b.data_ptr()`` (or ``!=``): where a move is compared with its source, the
    same memory means the same tensor; else None."""
    if type(test) is not ast.Compare or len(test.ops) != 1:
        return None
    op, left, right = type(test.ops[0]), test.left, test.comparators[0]
    if op in (ast.Is, ast.IsNot):
        return left, right, op is ast.Is
    pointers = [node.func.value for node in (left, right) if type(node) is ast.Call and not node.args
                and type(node.func) is ast.Attribute and node.func.attr == "data_ptr"]
    if op in (ast.Eq, ast.NotEq) and len(pointers) == 2:
        return pointers[0], pointers[1], op is ast.Eq
    return None


def _has_fields(value) -> bool:
    """Whether ``value`` is an object whose fields are known where it is (a named tuple, an
    object built here)."""
    return type(value) is Value and any(fact.startswith(FIELDS) for fact in value.facts)


def _field_held(value: Value, path: str) -> Optional[Value]:
    """What a named tuple holds at a dotted field path (``inputs``, ``batch.inputs``), else None."""
    for name in path.split("."):
        value = _named_field(value, name)
        if value is None:
            return None
    return value


def _named_field(value: Value, name: str) -> Optional[Value]:
    """The item a named tuple holds under the field ``name`` (``values`` of ``w.max(-1)``), else None."""
    for fact in value.facts:
        if fact.startswith(FIELDS):
            names = fact[len(FIELDS):].split("|")
            return value.item(str(names.index(name))) if name in names else None
    return None


_ELEMENTWISE = {"max": "torch.maximum", "min": "torch.minimum"}  # ``torch.max(a, b)`` is ``torch.maximum(a, b)``


def _along_a_dim(arguments, keywords: dict) -> bool:
    """``w.max(0)``, ``w.max(dim=1)``: a dim given (a number), not a tensor (``w.max(u)``)."""
    return "dim" in keywords or bool(arguments) and bool(arguments[0].kinds) and arguments[0].kinds <= _NUMERIC


ONE_OF = "one_of:"  # a fact: the value is one of these constants (their reprs, ``|``-joined)
AT_LEAST = "at_least:"  # a fact: the value is an integer no smaller than this constant
STEPPED = "stepped:"  # a fact: the value is a range loop's variable (that name), another integer at each pass
_CONTAINER_AT_START = "!container_at_start:"  # state key, per loop: the container it walks, as the loop began
# the one method of a dict a loop that rebinds its visited items may call: it reads no item
_KEY_METHODS = frozenset(("keys",))
_CONSTANTS_AT_MOST = 16


def _constant_getattr(node) -> bool:
    """``getattr(m, "w")``: the attribute ``m.w``, spelled with a constant name."""
    return type(node) is ast.Call and type(node.func) is ast.Name and node.func.id == "getattr" \
        and len(node.args) == 2 and type(node.args[1]) is ast.Constant and type(node.args[1].value) is str


def _visited_key(target, iterated) -> Tuple[Optional[str], Optional[str]]:
    """The container a loop walks and the name bound to the key (or position) of the item it
    visits: ``for k, v in d.items()``, ``for k in d``, ``for i, v in enumerate(xs)``,
    ``for i in range(len(xs))``; (None, None) for any other loop."""
    names = [element.id for element in target.elts if type(element) is ast.Name] \
        if type(target) is ast.Tuple and len(target.elts) == 2 else None
    call = iterated if type(iterated) is ast.Call and not iterated.keywords else None
    method = call.func.attr if call is not None and type(call.func) is ast.Attribute and not call.args else None
    function = place_of(call.func) if call is not None else None
    if names and len(names) == 2 and method == "items":
        return place_of(call.func.value), names[0]
    if names and len(names) == 2 and function == "enumerate" and len(call.args) == 1:
        return place_of(call.args[0]), names[0]
    if type(target) is not ast.Name:
        return None, None
    if method == "keys":
        return place_of(call.func.value), target.id
    if function == "range" and len(call.args) == 1 and type(call.args[0]) is ast.Call \
            and place_of(call.args[0].func) == "len" and len(call.args[0].args) == 1:
        return place_of(call.args[0].args[0]), target.id
    return place_of(iterated), target.id


def _at_start(loop) -> str:
    return f"{_CONTAINER_AT_START}{loop.lineno}:{loop.col_offset}"


def _iterates_the_container(iterated) -> bool:
    """``for k in d`` (no call): the visited key is ``k`` only where ``d`` is a dict (a list
    yields its items)."""
    return type(iterated) is not ast.Call


def _rebinds_only_visited_items(loop) -> Optional[str]:
    """The container a loop walks where its body rebinds items of it, each time the item it
    visits (``d[k] = ...`` with ``k`` the visited key, never rebound), and touches it in no other
    way: no other item read, stored or deleted (an item visited earlier is changed), no method
    but ``keys()``, the container not rebound, handed to a call or bound to another name; None
    for any other loop."""
    container, key = _visited_key(loop.target, loop.iter)
    if container is None:
        return None
    rebinds = False
    for node in (found for statement in loop.body for found in ast.walk(statement)):
        kind = type(node)
        if kind is ast.Subscript and place_of(node.value) == container:
            if type(node.slice) is not ast.Name or node.slice.id != key:
                return None  # another item, read or stored: later passes may see it changed
            rebinds = rebinds or type(node.ctx) is not ast.Load
        elif kind in (ast.Name, ast.Attribute) and type(node.ctx) is not ast.Load \
                and place_of(node) in (container, key):
            return None
        elif kind is ast.Call and (
                type(node.func) is ast.Attribute and place_of(node.func.value) == container
                and node.func.attr not in _KEY_METHODS
                or any(place_of(argument) == container for argument in node.args + [kw.value for kw in node.keywords])):
            return None
        elif kind in (ast.Assign, ast.AnnAssign, ast.NamedExpr) and place_of(node.value) == container:
            return None
    return container if rebinds else None


def _loop_constants(target, iterated) -> list:
    """``for k in ("a", "b")``, ``for i in range(1, 3)``, ``for i, v in enumerate((1, 2), start=1)``:
    the names the loop binds to one of a few constants, with their reprs."""
    if type(target) is ast.Name:
        constants = _constants_iterated(iterated)
        return [(target.id, constants)] if constants else []
    if type(target) is ast.Tuple and len(target.elts) == 2 and type(iterated) is ast.Call \
            and place_of(iterated.func) == "enumerate" and iterated.args:
        listed = _literal_constants(iterated.args[0])
        start = _keyword(iterated, "start")
        first = _constant(start) if start is not None else 0
        found = []
        if listed and type(first) is int and all(type(name) is ast.Name for name in target.elts):
            found.append((target.elts[0].id, tuple(repr(first + n) for n in range(len(listed)))))
            found.append((target.elts[1].id, listed))
        return found
    return []


def _range_start(iterated) -> Optional[int]:
    """The least value the variable of a loop over ``range(n)`` or ``range(k, n)`` (``k`` a
    constant, ``n`` any, step 1) takes; None for any other loop."""
    if type(iterated) is not ast.Call or place_of(iterated.func) != "range" or iterated.keywords \
            or not 1 <= len(iterated.args) <= 3 or len(iterated.args) == 3 and _constant(iterated.args[2]) != 1:
        return None
    start = _constant(iterated.args[0]) if len(iterated.args) > 1 else 0
    return start if type(start) is int and start >= 0 else None


def _constants_iterated(iterated) -> tuple:
    listed = _literal_constants(iterated)
    if listed:
        return listed
    if type(iterated) is ast.Call and place_of(iterated.func) == "range" and 1 <= len(iterated.args) <= 2 \
            and not iterated.keywords:
        bounds = [_constant(argument) for argument in iterated.args]
        if all(type(bound) is int for bound in bounds):
            low, high = (0, bounds[0]) if len(bounds) == 1 else bounds
            if 0 < high - low <= _CONSTANTS_AT_MOST:
                return tuple(repr(n) for n in range(low, high))
    return ()


def _literal_constants(node) -> tuple:
    """The reprs of a literal tuple or list of int and str constants (a few), else ()."""
    if type(node) not in (ast.Tuple, ast.List) or not node.elts or len(node.elts) > _CONSTANTS_AT_MOST:
        return ()
    values = [_constant(element) for element in node.elts]
    if not all(type(value) in (int, str) for value in values):
        return ()
    return tuple(repr(value) for value in values)


def _one_of(value: Optional[Value]) -> tuple:
    """The constants (their reprs) narrowing or a loop proved ``value`` one of, else ()."""
    for fact in value.facts if value is not None else ():
        if fact.startswith(ONE_OF):
            return tuple(fact[len(ONE_OF):].split("|"))
    return ()


def _spread(call, arguments: list) -> list:
    """The values a call passes by position, with ``f(*pair)`` unpacked: the items of a sequence
    known by position take their places; past a starred value of unknown length no position is
    known, so the parameters from there on are left unbound (not given the sequence itself)."""
    if type(call) is not ast.Call or not any(type(argument) is ast.Starred for argument in call.args):
        return arguments
    shift = len(arguments) - len(call.args)  # a method's receiver comes first
    if shift < 0:
        return arguments
    spread = list(arguments[:shift])
    for argument, value in zip(call.args, arguments[shift:]):
        if type(argument) is not ast.Starred:
            spread.append(value)
        elif _positional_items(value):
            spread.extend(item for _, item in sorted(value.items, key=lambda pair: int(pair[0])))
        else:
            break
    return spread


def _positional_items(value: Value) -> bool:
    """A sequence whose every item is known by position (a literal, an unrolled comprehension):
    ``list(v)`` and ``tuple(v)`` keep them in order."""
    return not value.is_tensor and "dict" not in value.kinds and bool(value.items) and all(
        key.isdigit() for key, _ in value.items)


def _items_at(container: Value, keys: tuple) -> Optional[Value]:
    """The join of the items at ``keys``: each key's own item, else the ``[*]`` item; a dict's key
    the file never stores is unknown (none for a list's position the model does not follow)."""
    found = None
    for key in keys:
        item = container.item(key)
        if item is None and container.kinds == kinds("dict"):
            item = UNKNOWN
        if item is None:
            return None
        found = item if found is None else join(found, item)
    return found


def _keys_within(base: Value, index: ast.AST) -> frozenset:
    """The ``WITHIN_PASSED`` facts of what a summary indexes out of ``base``: the path of keys from
    the parameter, one step per subscript (``batch["inputs"]["feats"]``: ``'inputs'``, then
    ``'feats'``), one path per path that reached ``base``."""
    key = key_of(index)
    paths = [fact[len(WITHIN_PASSED):] for fact in base.facts if fact.startswith(WITHIN_PASSED)]
    return frozenset(WITHIN_PASSED + (path + KEY_STEP + key if path else key) for path in paths or [""])


def _item_at(container: Value, path: str) -> Optional[Value]:
    """The item a path of keys (``_keys_within``) reaches in what a caller passed, a ``*`` step
    any item; None where a step is not known."""
    for key in path.split(KEY_STEP):
        if not container.items:
            return None
        container = items_join(container) if key == "*" else _item_keyed(container, key)
        if container is None:
            return None
    return container


def _item_keyed(container: Value, key: str) -> Optional[Value]:
    """The item at a constant key of a container the model knows the items of, a negative
    position counted from the end of a sequence of known length (``items[-1]``). A dict's ``[*]``
    is every item where it is all the dict holds (``{k: v for k in keys}``), not where other keys
    are known: there it holds what was put at keys the model cannot name, which may be others."""
    positions = [name for name, _ in container.items if name.isdigit()]
    if key.startswith("-") and key[1:].isdigit() and positions and len(positions) == len(container.items):
        key = str(len(positions) - int(key[1:]))
    if "dict" in container.kinds and all(name != key for name, _ in container.items) and any(
            name != "*" for name, _ in container.items):
        return None
    return container.item(key)


def _within_what_was_handed(storage) -> bool:
    """Whether ``storage`` is what an object was handed, or an attribute of it at any depth
    (``self.model.weight`` of ``self.model = model``)."""
    while type(storage) is tuple and len(storage) == 3 and storage[0] == "attribute":
        storage = storage[1]
    return type(storage) is tuple and storage[:1] == (HANDED,)


def _handed_root(storage) -> bool:
    """Whether ``storage`` is an item of what an object was handed (``HANDED``: the tensors of
    ``self.params = list(params)``); not an attribute of a handed object (``self.base_layer.weight``
    of a layer, whose ``.data`` the object reads to rebind it)."""
    if not (type(storage) is tuple and storage[:1] == ("item",)):
        return False
    while type(storage) is tuple and storage[:1] == ("item",):
        storage = storage[1]
    return type(storage) is tuple and storage[:1] == (HANDED,)


def _names_bound_again(function_node) -> frozenset:
    """The names ``function_node``'s own code (not a nested function's) binds more than once, or
    inside a loop."""
    arguments = getattr(function_node, "args", None)
    counts: dict = {argument.arg: 1 for argument in (
        arguments.posonlyargs + arguments.args + arguments.kwonlyargs)} if arguments is not None else {}

    def visit(node, in_loop: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if type(child) in (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef):
                continue
            looping = in_loop or type(child) in (ast.For, ast.AsyncFor, ast.While, ast.comprehension)
            if type(child) is ast.Name and type(child.ctx) is ast.Store:
                counts[child.id] = counts.get(child.id, 0) + (2 if in_loop else 1)
            elif type(child) is ast.AugAssign and type(child.target) is ast.Name:
                counts[child.target.id] = counts.get(child.target.id, 0) + 2
            visit(child, looping)

    visit(function_node, False)
    return frozenset(name for name, count in counts.items() if count > 1)


def _part_indexed(index, state: dict, bound_again=None) -> frozenset:
    """The positions an index takes along the first dimension it does not take whole (``x[0]``,
    ``x[0, ..., 1::3]``, ``x[d]`` with ``d`` one of 1 and 2; ``x[:, 4]``, ``x[:, :4]`` along the
    second), as reprs, ``"1@4"`` for position 4 of dimension 1; empty where unknown. Two parts of
    one dimension with no position in common are disjoint memory."""
    elements = index.elts if type(index) is ast.Tuple else [index]
    ellipsis = next((at for at, element in enumerate(elements)
                     if type(element) is ast.Constant and element.value is Ellipsis), None)
    for at, element in enumerate(elements):
        if at == ellipsis or type(element) is ast.Slice and element.lower is None and element.upper is None \
                and element.step is None:
            continue  # ``:``, the whole dimension: the part is along a later one
        # after ``...`` a dimension is counted from the last (``x[..., :k]``: dimension -1)
        dimension = at if ellipsis is None or at < ellipsis else at - len(elements)
        positions = _positions(element, state, bound_again)
        if not positions:
            return EMPTY
        return frozenset(str(position) if dimension == 0 else f"{dimension}@{position}" for position in positions)
    return EMPTY


_ENUMERATED_AT_MOST = 64  # a constant slice of more positions says nothing of its part


def _positions(element, state: dict, bound_again=None) -> frozenset:
    """The non-negative positions one index element takes: a constant, a name holding one of
    some constants or bounded below (``">=1"``: any from 1 on), a slice with constant bounds
    (``:4``, ``2:6``) or a constant start (``4:``, ``">=4"``), either side of a split at a name
    (``"<$k"`` for ``:k``, ``">=$k"`` for ``k:``, marked with the assignments that may have bound
    the ``k`` reaching them; none where ``k`` is among the names ``bound_again()`` gives and no
    assignment is known), else none."""
    if type(element) is ast.Constant and type(element.value) is int:
        return frozenset((element.value,)) if element.value >= 0 else EMPTY
    if type(element) is ast.Slice and element.step is None and (
            type(element.lower) is ast.Name and element.upper is None
            or element.lower is None and type(element.upper) is ast.Name):
        # ``x[..., :k]`` and ``x[..., k:]``: the two sides of one split, whatever ``k`` holds where one
        # binding of it reaches both (a parameter the function never binds again, or one assignment)
        name = (element.lower or element.upper).id
        held = state.get(name)
        sites = sorted(fact[len(BOUND_AT):] for fact in held.facts if fact.startswith(BOUND_AT)) \
            if type(held) is Value else []
        if sites:  # the assignments that may have bound what reaches this slice: one value where they are the same
            name = f"{name}#{'|'.join(sites)}"
        elif bound_again is not None and name in bound_again():
            return EMPTY
        return frozenset((f">=${name}",) if element.lower is not None else (f"<${name}",))
    if type(element) is ast.Slice:
        lower = _constant(element.lower) if element.lower is not None else 0
        upper = _constant(element.upper) if element.upper is not None else None
        if element.step is None and element.upper is None and type(lower) is int and lower > 0:
            return frozenset((f">={lower}",))  # ``x[4:]``: any position from 4 on
        if element.step is not None or type(lower) is not int or type(upper) is not int or not 0 <= lower < upper \
                or upper - lower > _ENUMERATED_AT_MOST:
            return EMPTY
        return frozenset(range(lower, upper))
    place = place_of(element) if type(element) is ast.Name else None
    if place is not None and place in state and type(state[place]) is Value:
        constants = _one_of(state[place])
        if constants and all(constant.isdigit() for constant in constants):
            return frozenset(int(constant) for constant in constants)
        lowest = next((fact[len(AT_LEAST):] for fact in state[place].facts if fact.startswith(AT_LEAST)), None)
        stepped = next((fact[len(STEPPED):] for fact in state[place].facts if fact.startswith(STEPPED)), None)
        if lowest is not None:  # ``x[i]`` for ``i`` in ``range(1, n)``: any position from 1 on, another at each pass
            return frozenset((f">={lowest}",) + ((f"~{stepped}",) if stepped else ()))
    return EMPTY


def with_dtype_among(value: Value, dtypes: frozenset, among: bool) -> Value:
    """Narrowing proved the dtype one of ``dtypes`` (``among``) or none of them."""
    return value._replace(facts=value.facts | {("dtypes:" if among else "!dtypes:") + ",".join(sorted(dtypes))})


def may_have_dtype(value: Value, dtype: str) -> bool:
    """Whether ``value`` may be of ``dtype``: no fact it holds rules it out."""
    known = dtype_of(value)
    if known and known != dtype:
        return False
    for fact in value.facts:
        if fact.startswith("dtypes:") and dtype not in fact[7:].split(","):
            return False
        if fact.startswith("!dtypes:") and dtype in fact[8:].split(","):
            return False
    return True


def _built_dtype(node) -> frozenset:
    """A torch.nn layer's parameters: float32 unless its ``dtype=`` names another (or one the model
    cannot name)."""
    given = _keyword(node, "dtype")
    named = dtype_named(place_of(given) or "") if given is not None else "float32"
    return frozenset(("dtype:" + named,)) if named else EMPTY


def made_elsewhere(storages: frozenset, function_node) -> frozenset:
    """The storages allocated at a site of the file outside ``function_node`` (not a parameter's),
    what an object was handed when it was built (``self.model`` of ``__init__(self, model)``), or
    held by either (``self.bn.running_mean`` of the layer ``__init__`` built, ``self.model[2]``)."""
    first, last = getattr(function_node, "lineno", 0), getattr(function_node, "end_lineno", 0)
    return frozenset(storage for storage in storages if type(storage) is tuple and (
        type(storage[0]) is int and not first <= storage[0] <= last or storage[0] == HANDED
        or storage[0] in ("attribute", "item") and made_elsewhere(frozenset((storage[1],)), function_node)))


def _of_enclosing_parameters(storages: frozenset, function) -> frozenset:
    """The storages that are what a function enclosing ``function`` was passed (``t`` of
    ``make_scaler(t)`` written by the closure ``scale`` it returns), or held within it: made
    elsewhere, each call of the closure writes what its factory's caller passed."""
    enclosing, outer = set(), function.parent
    while outer is not None:
        enclosing.add(outer.name)
        outer = outer.parent
    return frozenset(storage for storage in storages if any(
        parameter_holding(storage, name) is not None for name in enclosing)) if enclosing else EMPTY


def _constant_dtype(node) -> str:
    """``dtype="float32"`` spelled as a string."""
    value = _constant(node) if node is not None else None
    return value if type(value) is str and value in k.DTYPES else ""


def _blank(qual: str) -> frozenset:
    """``BLANK`` for a buffer of constant or uninitialised content (``torch.empty(n)``): made to be
    filled, so a write through an alias of it fills it."""
    return BLANK if "blank" in k.role_of("function", qual) else EMPTY


BLANK = frozenset(("blank",))


def array_item(node: ast.Subscript, base: Value, index: Value) -> Value:
    """``a[i]``, ``a[1:3]``, ``a[..., 0]``: basic indexing views the array's memory; indexing by a
    list, an array or a mask (advanced indexing) copies what it picks."""
    return new_array(node) if _advanced_index(node.slice, index) else base._replace(fresh=False, items=None)


def _advanced_index(index_node, index: Value) -> bool:
    """An index known to pick elements by a list, an array, a tensor or a comparison (a mask),
    also inside a tuple (``x[:, [0, 2]]``): advanced indexing, which copies where a slice or an
    integer views."""
    if type(index_node) is ast.Tuple:
        items = dict(index.items or ())
        return any(type(element) is ast.Tuple or _advanced_index(element, items.get(str(position), UNKNOWN))
                   for position, element in enumerate(index_node.elts))  # ``x[..., (0, 1)]``: a sequence picks
    if ZERO_DIM in index.facts and dtype_of(index) != "bool":
        return False  # ``x[i]`` of a 0-d integer tensor (an item of ``torch.arange(n)``): an integer index, a view
    return type(index_node) in (ast.List, ast.Compare, ast.ListComp) or bool(
        index.kinds & {"list", "ndarray", "tensor"}) and "?" not in index.kinds


def _basic_index(index_node) -> bool:
    """An index of slices, integer constants, ``None`` and ``...`` only (``x[:, -1]``): it views
    a tensor or an array whatever the index's values."""
    if type(index_node) is ast.Tuple:
        return all(_basic_index(element) for element in index_node.elts)
    if type(index_node) is ast.UnaryOp and type(index_node.op) is ast.USub:
        index_node = index_node.operand
    return type(index_node) is ast.Slice or type(index_node) is ast.Constant and (
        type(index_node.value) is int or index_node.value is None or index_node.value is Ellipsis)


def _attribute_returned(model, function, returned: Value) -> Optional[str]:
    """The attribute of its own object whose tensor a method returns as it is (``return
    self.state``), by the memory its class allocated there."""
    if not function.receiver_offset or function.owner is None or returned.fresh or not returned.is_tensor:
        return None
    for owner in function.owner.lineage(model.classes):
        for name, stored in sorted(owner.attributes.items()):
            if (stored.is_tensor or "ndarray" in stored.kinds) and returned.storages & frozenset(
                    storage for storage in stored.storages if _allocated(storage)):
                return name
    return None


def _called_name(function, call) -> str:
    """How a message names the function a call runs: its name (an object's ``__call__`` with its
    class, ``Crop.__call__``), a lambda by the name it is called by."""
    name = getattr(function.node, "name", None)
    if name == "__call__" and function.owner is not None:
        return f"{function.owner.name}.__call__"
    return name or place_of(call.func) or "lambda"


def _handed_as_is(instance, function, returned: Optional[Value]) -> frozenset:
    """The aliases the arguments a function returns as they are were made as (``centered(a.numpy())``
    hands back the ``numpy()`` alias itself)."""
    if returned is None:
        return EMPTY
    indices = {parameter_index(storage, function.name) for storage in returned.storages} - {None}
    return frozenset().union(*(instance.actual(index).made for index in indices))


def _items_handed_as_is(instance, function, returned: Optional[Value], result: Value) -> Value:
    """Items of a returned container that are arguments as they were passed (``return lat,
    cond``) are the aliases those arguments were made as, as a lone returned argument is."""
    if returned is None or not returned.items or not result.items or result.is_tensor:
        return result
    by_key = dict(returned.items)
    items = tuple((key, item._replace(made=item.made | _handed_as_is(instance, function, by_key[key]))
                   if key in by_key else item) for key, item in result.items)
    return result._replace(items=items) if items != result.items else result


def _iteration_of(method: str, element: Value) -> Value:
    """What a mapping's ``values()``, ``items()`` (``(key, value)`` pairs) or ``keys()`` hand out
    to a loop, ``element`` being one of its values."""
    if method == "items":
        element = Value(kinds("tuple"), items=(("0", UNKNOWN), ("1", element)))
    return Value(kinds("list"), items=(("*", element if method != "keys" else UNKNOWN),))


_MAPPINGS = kinds("dict", "?")  # what ``items()``/``values()`` may iterate the items of
_DICT = kinds("dict")


def _filled_elsewhere(container: Value, place: Optional[str]) -> Value:
    """An item of a container none of whose items the file put there (``self.slots = {}``,
    filled by callers): unknown, but an object the container holds (a storage per container), so
    that two names taken from it, and a write through one, relate; it remembers the container's
    place (``item_of:self.slots``), which keeps it after the name taken from it is gone."""
    if container.items or not container.storages:
        return UNKNOWN
    return Value(kinds("?"), storages=frozenset(held_within("item", storage) for storage in container.storages),
                 facts=frozenset((ITEM_OF + place,)) if place is not None else EMPTY)


ITEM_OF = "item_of:"  # a fact: the value is an item of the container at the place that follows
SUBMODULE = "submodule?"  # a fact: what a module holds under a name the model does not know (maybe a layer)


def _tensor_of_parameter(value: Value) -> bool:
    """In a summary, a parameter of a module a caller passes (``module.weight``): a tensor at
    every call site that passes a module."""
    return value.kinds == UNKNOWN.kinds and bool(value.storages) and all(
        type(storage) is tuple and storage[:1] == ("attribute",) and "module_parameter" in k.role_of("attribute", storage[2])
        for storage in value.storages)


def _held_item(value: Value) -> bool:
    """An item of a container, of unknown kind (``_filled_elsewhere``)."""
    return value.kinds == UNKNOWN.kinds and not value.kind_from and any(fact.startswith(ITEM_OF) for fact in value.facts)


def _read_back(element) -> Value:
    """``t[i].item()``: a number that remembers the element it was read from, so that writing
    it back there (``t[i] = saved``) is known to undo a write in between (a perturbation)."""
    place = place_of(element)
    return INTEGER._replace(facts=frozenset(("read_from:" + place,))) if place is not None else INTEGER


_NESTED_MODULES = 64  # the submodules of one module followed at most (a class may hold an instance of itself)


def _as_passed(given, value: Value) -> Value:
    """What a summary's value is at a call: a parameter kept as it is (``self.pixels = pixels``)
    is the caller's value, the aliases it is included (``video.numpy()``)."""
    result = given.value(value)
    index = parameter_index(next(iter(value.storages)), given.function) if len(value.storages) == 1 else None
    return result if index is None else result._replace(made=result.made | given.actual(index).made)


def _across_host_and_gpu(source: frozenset, target: frozenset) -> bool:
    """Whether a move surely crosses between the host and a GPU (each side one known device)."""
    if len(source) != 1 or len(target) != 1:
        return False
    kinds = {next(iter(source)).split(":")[0], next(iter(target)).split(":")[0]}
    return kinds == {"cpu", "cuda"}


def _to_an_unknown_device(method: str, node, cast: str) -> bool:
    """Whether a move names a target the model cannot resolve to a device (``.to(cfg.device)``,
    ``.to(other)``, ``.type_as(other)``): the result may be on any device, whatever the tensor's."""
    if method == "type_as":
        return True
    if method != "to":
        return False
    given = node.args[0] if node.args else _keyword(node, "device")
    return given is not None and not (node.args and cast and given is node.args[0] and dtype_named(place_of(given) or ""))


def _named_from_here(value: Value, node) -> Value:
    """An object of no known memory that a use proves an array or a tensor (``raw`` of
    ``torch.from_numpy(raw)``, made by a call the model cannot see): memory of its own from
    here on, so that an alias of it and a write through its name relate."""
    if value.storages or node is None:
        return value
    # named by where the use's operand ends: a call starting there (``x.clone()``) is another object
    return value._replace(storages=frozenset(((node.end_lineno, node.end_col_offset),)))


def _only_parameters(value: Value, function: str) -> bool:
    """Whether all ``value`` holds is what callers pass to ``function`` (or is held within it)."""
    return bool(value.storages) and all(parameter_holding(storage, function) is not None for storage in value.storages)


def _layers_kept(function, actuals) -> frozenset:
    """The memory of the torch layers a method's receiver keeps in its fields (``self.model`` of
    ``Keeper(nn.Linear(4, 1))``)."""
    receiver = actuals[0] if function.receiver_offset and actuals and actuals[0] is not None else None
    if receiver is None or not _has_fields(receiver) or not receiver.items:
        return EMPTY
    return frozenset().union(*(field.storages for _, field in receiver.items if is_torch_layer(field)))


def _items_handed(value: Value, initializer: str) -> bool:
    """Whether a new container holds what ``initializer`` was handed as its items (``list(params)``)."""
    return bool(value.items) and not any(parameter_index(storage, initializer) is not None for storage in value.storages) \
        and any(parameter_holding(storage, initializer) is not None for _, item in value.items for storage in item.storages)


def _proved(place: str, value: Value, state: dict) -> None:
    """A place's value made more precise by a use (a tensor, an array), not rebound: a guard a
    join left on it (``GUARDED``) still tells its paths apart."""
    before = state.get(place)
    state[place] = value
    if GUARDED in state:
        state[GUARDED] = frozenset((condition, at, when_true, when_false, value if at == place and joined == before
                                    else joined) for condition, at, when_true, when_false, joined in state[GUARDED])


def _handed_to_this_instance(instance: Value, name: str, stored: Value, keys: frozenset = EMPTY) -> dict:
    """What the constructor was handed and keeps in ``self.<name>`` (``self.arrays = arrays``,
    or its items in a list of its own: ``keys``), as the instance built here holds it in that
    field: the caller's list, and its items."""
    field = _named_field(instance, name)
    if field is None or not (field.storages or field.items):
        return {}
    mapping = {}
    for key in keys:  # ``self.params = list(params)``: the items the caller's ``params`` held
        mapping[held_within("item", key)] = items_join(field).storages if field.items else EMPTY
    for storage in stored.storages:
        if type(storage) is tuple and storage[:1] == (HANDED,) and storage[2].endswith("__init__"):
            mapping[storage] = field.storages
            mapping[held_within("item", storage)] = items_join(field).storages if field.items else frozenset(
                held_within("item", passed) for passed in field.storages)
    return mapping


def _per_instance(info, instance: Value, name: str, stored: Value) -> Value:
    """``teacher.fc`` where ``teacher = TinyNet()``: what the class allocates for each instance
    (``self.fc = nn.Linear(...)`` in a method) belongs to the instance: a storage per
    construction of the class and attribute that allocates it, so that two instances share
    nothing and two attributes of one instance holding one allocation share it
    (``self.anchor = self.fc.weight.data``: ``m.anchor`` is ``m.fc``'s memory)."""
    node = info.node
    built = frozenset(storage for storage in instance.storages if _allocated(storage))
    inside = frozenset(storage for storage in stored.storages
                       if _allocated(storage) and node.lineno <= storage[0] <= node.end_lineno)
    if not built or not inside:
        return stored
    # an instance the file may not construct (a parameter's) keeps the class's own storages too
    unseen = any(not _allocated(storage) and storage[0] != HANDED for storage in instance.storages)
    kept = stored.storages if unseen else stored.storages - inside
    return stored._replace(storages=kept | {("attribute", storage, info.allocating_attribute(allocation, name) or name)
                                            for storage in built for allocation in inside})


GRAD_OFF_AROUND = "!grad_off_around:"  # state key prefix, per ``enable_grad()`` block: the grad-off contexts it suspends
WRITES_INPUT = "writes_input"  # a fact of a layer built with ``inplace=True``: a call writes its input
BOUND_ARGUMENTS = "bound_arguments"  # a fact of a ``functools.partial``: its items are the arguments it binds
UPDATES_RUNNING_STATS = "updates_running_stats"  # a fact of a layer whose call in training mode writes its statistics
IN_EVAL = "in_eval"  # a fact of a module ``.eval()`` (or ``.train(False)``) was called on
FROZEN = "frozen"  # a fact of a module ``.requires_grad_(False)`` was called on: no parameter of it requires grad
RETAINS_GRAD = "retains_grad"  # a fact: ``retain_grad()`` was called on the tensor, backward fills its ``.grad``
SAVED_IF_GRAD = "!saved_if_grad"  # state key of a summary: parameters kept for their own gradient, where they need one
HANDED = "handed"  # a storage: what a method of a class was handed and the instance keeps (Model._fold_stores)


def _made_anew_each_pass(storage, node, function_node) -> bool:
    """An allocation site on a statement of its own in the body of a loop that also runs ``node``
    (``buf = np.empty(n)`` then ``buf[:] = row; yield buf``): each pass makes a new object there,
    so a write in a later pass is not of what an earlier pass handed out."""
    if not _allocated(storage) or len(storage) < 2 or not hasattr(node, "lineno"):
        return False
    position = (storage[0], storage[1])
    for loop in ast.walk(function_node):
        if type(loop) not in (ast.For, ast.AsyncFor, ast.While) or not loop.body:
            continue
        body = [(statement.lineno, statement.col_offset, statement.end_lineno, statement.end_col_offset)
                for statement in loop.body if type(statement) in (ast.Assign, ast.AnnAssign, ast.Expr)]
        inside_body = (loop.body[0].lineno, loop.body[0].col_offset) <= (node.lineno, node.col_offset) \
            <= (loop.end_lineno, loop.end_col_offset)
        if inside_body and any((first, column) <= position <= (last, end_column) for first, column, last, end_column in body):
            return True
    return False


def _allocated(storage) -> bool:
    """An allocation site of the file (a position), not a symbol (a parameter, an attribute of one)."""
    return type(storage) is tuple and bool(storage) and type(storage[0]) is int


def _given_by_caller(base: Value, name: str, stored: Value) -> Value:
    """``volume.voxels`` where ``volume`` is a parameter holding an instance of a class of the
    file whose tensor there the file never allocates (its ``__init__`` was handed it): the
    caller's own object, a storage per path as for an unknown parameter's attribute."""
    if stored.storages or not (stored.is_tensor or "ndarray" in stored.kinds) or not base.storages or not all(
            type(storage) is tuple and storage[:1] == ("param",) for storage in base.storages):
        return stored
    return stored._replace(storages=frozenset(held_within("attribute", storage, name) for storage in base.storages))


def _operand(node):
    """What an attribute is read from: ``w`` in ``w.data`` and in ``getattr(w, "data")``."""
    return node.value if type(node) is ast.Attribute else node.args[0]


_PARTIAL_VIEWS = frozenset(("narrow", "select", "diagonal", "unfold", "as_strided"))


_CROSSING_KINDS = ("numpy", "from_numpy")  # an alias chain crossing libraries is decided by the crossing


def _in_caller(function, call, bound: int, place: Optional[str]) -> Optional[str]:
    """A place of ``function`` rooted at one of its parameters, as the ``call`` that binds
    ``bound`` values names it: the argument's place for the parameter (``self.counts`` for the
    receiver's ``counts``); None where the call passes no named place there. ``ds[i]`` calls
    ``__getitem__`` with ``ds`` and ``i``."""
    if type(call) is ast.Subscript:
        call = ast.Call(func=ast.Attribute(value=call.value, attr="__getitem__"), args=[call.slice], keywords=[])
    if place is None or type(call) is not ast.Call or any(type(argument) is ast.Starred for argument in call.args):
        return None
    head = place.split(".", 1)[0].split("[", 1)[0]
    if head not in function.names:
        return None
    index = function.names.index(head)
    given = list(call.args)
    if bound == len(given) + 1:  # the receiver (or the module called) is bound first
        given.insert(0, call.func.value if type(call.func) is ast.Attribute else call.func)
    positional = len(function.node.args.posonlyargs) + len(function.node.args.args)
    argument = given[index] if index < min(len(given), positional) else next(
        (keyword.value for keyword in call.keywords if keyword.arg == head), None)
    named = place_of(argument) if argument is not None else None
    return named + place[len(head):] if named is not None else None


def _view_kind(method: str) -> str:
    """A view of part of a tensor (a slice, a chunk) or of all of it (``view``, ``t()``)."""
    return "partial_view" if method in _PARTIAL_VIEWS or method in k.METHODS_RETURNING_TENSOR_SEQUENCE else "view"


_NUMERIC = frozenset(("number", "int", "bool"))


def _pinned_where_it_matters(flag) -> bool:
    """``pin_memory=True``, or a condition (``pin_memory=torch.cuda.is_available()``): pinned
    wherever a device is there to copy from, the only place an asynchronous copy can happen."""
    return flag is not None and _constant(flag) is not False and not (
        type(flag) is ast.Constant and flag.value in (None, 0, ""))


def _inherited_layer_facts(layer: str) -> frozenset:
    """What a class deriving from the torch layer ``layer`` (or ``super()`` in one) does when
    called as that layer: nothing to train (``nn.ReLU``), running statistics written in training
    mode (``nn.BatchNorm1d``, built with its defaults)."""
    if not layer:
        return EMPTY
    return (frozenset(("parameter_free",)) if parameter_free_layer(layer) else EMPTY) | (
        frozenset((UPDATES_RUNNING_STATS,)) if layer in k.LAYERS_UPDATING_RUNNING_STATS else EMPTY)


def _running_statistics(module: Value, depth: int = 0) -> frozenset:
    """The buffers a call of ``module`` writes in place: a layer keeping running statistics, not
    in eval mode, and those of the layers a chain of them runs (``nn.Sequential(lin, bn)``)."""
    if IN_EVAL in module.facts or depth > _NESTED_MODULES:
        return EMPTY
    found = frozenset(held_within("attribute", storage, name) for storage in module.storages
                      for name in k.RUNNING_STATISTICS) \
        if UPDATES_RUNNING_STATS in module.facts else EMPTY
    if "module_chain" in k.role_of("function", module.qual):
        for _, layer in module.items or ():
            found |= _running_statistics(layer, depth + 1)
    return found


def _runs_forward(callee: Value) -> bool:
    return "module" in callee.kinds or any(kind.startswith("object:") for kind in callee.kinds)


def forwarded(module: Value, state: dict) -> None:
    """A module's forward may have run where grad is recorded: the objects it may be are ones
    that ran it (under ``torch.no_grad()`` what a forward stores on ``self`` is no graph)."""
    if module.storages and not state.get(NO_GRAD):
        state[FORWARDED] = state.get(FORWARDED, EMPTY) | module.storages


def chain_saves(module: Value) -> Optional[tuple]:
    """What a chain of layers (``nn.Sequential(a, b)``) keeps of its own input and output for
    backward: its input where its first layer keeps its input, its output where its last layer
    keeps its output (the torch tables say which; a chain may end in a chain). None for a module
    that is no chain, or whose layers are not known one by one."""
    layers = module.items
    if "module_chain" not in k.role_of("function", module.qual) or not layers or any(key == "*" for key, _ in layers):
        return None
    first, last = layers[0][1], layers[-1][1]
    first_keeps = chain_saves(first) or k.SAVED_FOR_BACKWARD.get(first.qual) or ()
    last_keeps = chain_saves(last) or k.SAVED_FOR_BACKWARD.get(last.qual) or ()
    return tuple(what for what, kept in ((0, 0 in first_keeps), ("output", "output" in last_keeps)) if kept)


def _literal_pairs(node, value: Value) -> Optional[tuple]:
    """The items a literal list of ``(constant key, value)`` pairs gives a dict, in order."""
    if type(node) not in (ast.List, ast.Tuple) or value.items is None:
        return None
    found = []
    for index, element in enumerate(node.elts):
        pair = value.item(str(index))
        held = pair.item("1") if pair is not None else None
        if type(element) is not ast.Tuple or len(element.elts) != 2 or type(element.elts[0]) is not ast.Constant \
                or held is None:
            return None
        found.append((repr(element.elts[0].value), held))
    return tuple(found)


def _held_modules(arguments) -> tuple:
    """The items of ``nn.ModuleList([a, b])`` / ``nn.ModuleDict({...})`` (its one argument's) or
    of ``nn.Sequential(a, b)`` (its arguments)."""
    if len(arguments) == 1 and arguments[0].items is not None:
        return arguments[0].items
    return tuple((str(index), value) for index, value in enumerate(arguments))


_COLLATED_KINDS = frozenset(("tensor", "ndarray", "int", "number", "bool"))  # what default_collate makes tensors of
_OPERATIONS = (ast.Call, ast.BinOp, ast.UnaryOp)  # what makes a new value: none requires grad under no_grad
ZERO_DIM = "0-d"  # a fact: a tensor of no dimensions (``torch.stack`` of such gives shape (n,))
ONE_DIM = "1-d"  # a fact: a tensor of one dimension, whose items are 0-d tensors
UNPLACED = frozenset(("?",))  # a device: given (``device=device``) but not known; it may be an accelerator


def _identity_test(node: ast.Compare) -> bool:
    """``a is b`` between two non-constants, or ``id(a) == id(b)`` (scan's "identity comparison")."""
    operands = (node.left, node.comparators[0])
    if type(node.ops[0]) in (ast.Eq, ast.NotEq):
        return all(type(operand) is ast.Call and type(operand.func) is ast.Name and operand.func.id == "id"
                   for operand in operands)
    return type(node.ops[0]) in (ast.Is, ast.IsNot) and not any(type(operand) is ast.Constant for operand in operands)


DEVICE_TYPE_NAMED = "device_type_named"  # a fact of a string: "cpu" or "cuda", whichever path bound it
LIKE = "like:"  # a fact: a fresh ``*_like`` buffer shaped on the tensor a place held (``like:t:<its storages>``)


def like_fact(place: str, source: Value) -> str:
    return f"{LIKE}{place}:{sorted(source.storages, key=repr)}"


def shaped_like(result: Value, source_node, source: Value) -> Value:
    """``torch.empty_like(t)``: a new buffer shaped on what ``t`` holds now; filling it from
    that same tensor is a copy (``Value.facts`` keeps which, until the buffer is rebound)."""
    place = place_of(source_node)
    if place is None or not source.storages:
        return result
    return result._replace(facts=result.facts | {like_fact(place, source)})


def backpropagated(value: Value) -> Value:
    """An unknown value bound to a name some path calls ``.backward()`` on: a graph tensor
    from its binding on (a use after the site proves what the site held)."""
    return value._replace(kinds=TENSOR, grad=True, graph=True, why=_why(Evidence.USE, "kind", "grad"))


def _made_without_grad(value: Value, top: bool = True) -> Value:
    """What an operation computed where grad is disabled: no graph tensor, nor one among the
    items a call returns that the call made (``channels, weights = integrate(...)``; not an
    argument it hands back as it is); nor a gradient a detached read in it dropped (``.data``
    and ``.detach()`` are one there: no gradient could reach the tensor through it)."""
    items = value.items
    if items is not None and any(item.graph or item.grad_from or item.items for _, item in items):
        items = tuple((key, _made_without_grad(item, False)) for key, item in items)
    made_here = top or value.fresh or bool(value.storages) and all(
        type(storage) is tuple and storage[:1] == ("call",) for storage in value.storages)
    dropped = dropped_facts(value) if made_here else EMPTY
    if made_here and (value.graph or value.grad_from or dropped):
        return value._replace(grad=False, graph=False, grad_from=EMPTY, items=items, facts=value.facts - dropped)
    return value._replace(items=items) if items is not value.items else value


def _collating_loader(node: ast.Call, numeric: bool) -> Value:
    """``DataLoader(ds, batch_size=8)`` over a dataset whose items hold only numbers, arrays and
    tensors (``numeric``): iterating it yields batches the default ``collate_fn`` made, whose parts
    are tensors (a tuple or dict of them). Batches of anything else, or made by a ``collate_fn`` of
    its own, or unbatched (``batch_size=None``: numbers stay numbers), are unknown: said so as
    items, so that a join with another caller's loader keeps nothing of its batches either."""
    collate = _keyword(node, "collate_fn")
    size = node.args[1] if len(node.args) > 1 else _keyword(node, "batch_size")
    default = collate is None or is_none(collate)
    batched = size is None or not is_none(size)
    plain = not any(keyword.arg is None for keyword in node.keywords) and not any(
        type(argument) is ast.Starred for argument in node.args)
    part = Value(TENSOR, fresh=True, why=_why(Evidence.COLLATED, "kind")) if numeric and default and batched and plain \
        else UNKNOWN
    batch = Value(kinds("?"), fresh=True, items=(("*", part),))
    return Value(kinds("loader"), storages=frozenset((_site(node),)), fresh=True, items=(("*", batch),))


def _on_device(value: Value) -> bool:
    """A tensor (or what may be one) not known to be on the host (pinned memory is the host's):
    reading it waits for the device. One on the device the program picks (``"cuda" if
    torch.cuda.is_available() else "cpu"``) waits where the device is there; elsewhere no copy was
    asynchronous (the convention of ``device_type``)."""
    return (value.is_tensor or "?" in value.kinds) and not value.pinned and (
        "cpu" not in value.device or bool(value.device - HOST))


def _writes_input(layer: Value, holder: Value) -> bool:
    """A layer built with ``inplace=True``, unless it writes only in training (dropout) and ``.eval()``
    was called on it or on the module holding it."""
    return WRITES_INPUT in layer.facts and not (
        layer.qual in k.INPLACE_ONLY_IN_TRAINING and IN_EVAL in layer.facts | holder.facts)


def _next_layer_writing(chain: Value, layer_storage) -> Optional[Value]:
    """The layer of ``chain`` (an ``nn.Sequential``) right after the one holding ``layer_storage``
    where it writes its input in place (the output of the layer before), else None."""
    if "module_chain" not in k.role_of("function", chain.qual) or not chain.items:
        return None
    layers = [layer for _, layer in chain.items]
    for position, layer in enumerate(layers[:-1]):
        if layer_storage in layer.storages:
            following = layers[position + 1]
            return following if _writes_input(following, chain) else None
    return None


def _classes_of(value: Value) -> List[str]:
    """The classes of the file ``value`` may be an instance of, by name (in one order, so that a
    call on a value of several classes is solved alike on every run)."""
    return sorted(kind[7:] for kind in value.kinds if kind.startswith("object:"))


def _note_grad_at_call(function, may_record: bool) -> None:
    """A call site of the file, where grad may be recorded (``may_record``) or is surely off."""
    function.grad_at_calls = may_record or bool(function.grad_at_calls)


def _note_read_again(function, read: dict) -> None:
    """A call site reads again after the call the names it passed (``Transfer.names_read_again``)."""
    for index, again in read.items():
        function.read_again_by_callers[index] = function.read_again_by_callers.get(index, False) or again


def _note_kept(function, still_held: dict) -> None:
    """A call site still holds these arguments after the call (``Transfer.kept_arguments``)."""
    for index, held in still_held.items():
        function.kept_by_callers[index] = function.kept_by_callers.get(index, False) or held


def _rebound_after(function_node, call, name: str) -> float:
    """The last line of the first statement after the one making ``call``, in the same block,
    that binds ``name`` anew (``annotation = annotations[0]``): later uses read the new value."""
    innermost = None  # the statement list closest around the call, and where the call is in it
    for holder in [function_node, *descendants(function_node)]:
        for field in ("body", "orelse", "finalbody"):
            statements = getattr(holder, field, None)
            for index, statement in enumerate(statements if type(statements) is list else ()):
                if inside(call, statement):
                    innermost = statements, index
    if innermost is None:
        return float("inf")
    statements, index = innermost
    return next((later.end_lineno for later in statements[index + 1:] if type(later) is ast.Assign and any(
        type(target) is ast.Name and target.id == name for target in later.targets)), float("inf"))


def _before(load, call, loops) -> bool:
    """Whether a use of a name runs only before a call: on an earlier line, in no loop around both
    (``for g in groups: stacked = ...`` then, in a later loop, ``pad(grouped[key])``)."""
    return load.lineno < call.lineno and not any(inside(load, loop) and inside(call, loop) for loop in loops)


def _receiver_flags_read(function, model):
    """The attributes of its receiver a method tests, or ``ALL`` where it calls a method of its
    own object (``self.helper(x)``, which may test any)."""
    receiver = function.names[0]
    if any(type(node) is ast.Call and on_receiver(node.func, receiver)
           and model.method_of(function.owner.name, node.func.attr) is not None for node in ast.walk(function.node)):
        return ALL
    return frozenset(tested_on_receiver(function.node, receiver))


ALL = "all"  # every flag of the receiver (``_receiver_flags_read``)


def _flag_contradicts(test, truth: bool, state: dict) -> bool:
    """A test on a steady flag (``FLAG``) of the object a place holds, which that object holds the
    other way: ``if self.inplace:`` of a ``Clip`` built with ``inplace=False``, ``self.scale is
    None`` of one built with a scale."""
    tests_none = None
    if type(test) is ast.Compare and len(test.ops) == 1 and type(test.ops[0]) in (ast.Is, ast.IsNot) \
            and is_none(test.comparators[0]):
        test, tests_none = test.left, truth == (type(test.ops[0]) is ast.Is)
    if type(test) is not ast.Attribute:
        return False
    holder = place_of(test.value)
    value = state.get(holder) if holder is not None else None
    if type(value) is not Value:
        return False
    prefix = f"{FLAG}{test.attr}="
    held = [fact[len(prefix):] for fact in value.facts if fact.startswith(prefix)]
    if not held:
        return False
    if tests_none is not None:
        return (held[0] == "None") != tests_none
    return (held[0] == "True") != truth


def _freezes_itself(initializer) -> bool:
    """Whether a module's ``__init__`` ends frozen: ``self.requires_grad_(False)`` or a loop
    freezing every parameter of ``self`` among its statements, and no layer assigned to ``self``
    (nor ``self`` thawed) after it."""
    receiver = initializer.names[0] if initializer.names else "self"
    frozen = False
    for statement in initializer.node.body:
        setting = _grad_setting(statement)
        if setting is not None and setting[0] == receiver:
            frozen = setting[1]
        elif type(statement) in (ast.For, ast.AsyncFor) and _frozen_by_loop(statement) == receiver:
            frozen = True
        elif frozen and (type(statement) in (ast.Assign, ast.AnnAssign) and type(statement.value) is ast.Call
                         or _thaws(statement)):
            frozen = False  # ``self.head = nn.Linear(...)`` or ``self.head.requires_grad_(True)`` after freezing
    return frozen


def _thaws(statement) -> bool:
    """Whether a statement may make a parameter require grad again, at any depth (``if train_head:
    self.head.requires_grad_(True)``, ``for p in self.head.parameters(): p.requires_grad = True``)."""
    return any(setting is not None and not setting[1] for setting in map(_grad_setting, ast.walk(statement)))


def _grad_setting(node) -> Optional[tuple]:
    """``x.requires_grad_(flag)`` or ``x.requires_grad = flag`` (a statement or the call itself):
    (the place of ``x``, whether it turns grad off, a constant False); else None."""
    if type(node) is ast.Expr:
        node = node.value
    if type(node) is ast.Call and type(node.func) is ast.Attribute and node.func.attr == "requires_grad_":
        return place_of(node.func.value), _turns_grad_off(node)
    if type(node) is ast.Assign and len(node.targets) == 1 and type(node.targets[0]) is ast.Attribute \
            and node.targets[0].attr == "requires_grad":
        return place_of(node.targets[0].value), _constant(node.value) is False
    return None


def _turns_grad_off(call: ast.Call) -> bool:
    """``requires_grad_(False)`` (``requires_grad_()`` turns it on)."""
    flag = call.args[0] if call.args else _keyword(call, "requires_grad")
    return flag is not None and _constant(flag) is False


def thaw_holders(place: Optional[str], state: dict) -> None:
    """A layer of ``place``'s holders thawed or replaced (``model.fc = nn.Linear(...)``,
    ``model[0].requires_grad_()``): the modules holding it (``model``) have a parameter that
    requires grad again; the layer itself too, where ``place`` names one."""
    if place is None:
        return
    prefixes = [place] + [place[:at] for at, character in enumerate(place) if character in ".["]
    for prefix in prefixes:
        held = state.get(prefix)
        if type(held) is Value and FROZEN in held.facts:
            state[prefix] = held._replace(facts=held.facts - {FROZEN})


def _unfreezes(loop) -> bool:
    """``for p in m.parameters(): p.requires_grad = True`` (or ``requires_grad_()``): some
    parameter of ``m`` requires grad again."""
    iterable = loop.iter
    return type(iterable) is ast.Call and type(iterable.func) is ast.Attribute \
        and iterable.func.attr in ("parameters", "named_parameters") and place_of(iterable.func.value) is not None \
        and _thaws(loop)


def _looked_up_for_presence(compare: ast.Compare):
    """The mapping a comparison asks only whether it has a key: ``d.get(k) is None`` (or ``is
    not None``); else None. (Not ``k in x``: of a tensor, that compares its values.)"""
    if len(compare.ops) != 1:
        return None
    op, right = compare.ops[0], compare.comparators[0]
    left = compare.left
    if type(op) in (ast.Is, ast.IsNot) and type(right) is ast.Constant and right.value is None \
            and type(left) is ast.Call and type(left.func) is ast.Attribute and left.func.attr == "get":
        return left.func.value
    return None


def _frozen_by_loop(loop) -> Optional[str]:
    """The module a loop freezes (``for p in m.parameters(): p.requires_grad = False``, or
    ``p.requires_grad_(False)``, ``named_parameters()`` too), where the body does so for every
    parameter it visits (a statement of its own, no condition): the place of ``m``."""
    iterable, target = loop.iter, loop.target
    if type(iterable) is not ast.Call or type(iterable.func) is not ast.Attribute \
            or iterable.func.attr not in ("parameters", "named_parameters"):
        return None
    if iterable.func.attr == "named_parameters":
        target = target.elts[-1] if type(target) is ast.Tuple and len(target.elts) == 2 else None
    if type(target) is not ast.Name or _leaves_a_pass_early(loop.body):
        return None  # ``if name.startswith("head"): continue``: some parameters keep their grad
    if any(_grad_setting(statement) == (target.id, True) for statement in loop.body):
        return place_of(iterable.func.value)
    return None


def _leaves_a_pass_early(body) -> bool:
    """Whether a loop body may end a pass, or the loop, before its last statement: a ``continue``,
    ``break``, ``return`` or ``raise`` of its own (not of a nested loop or function)."""
    pending = list(body)
    while pending:
        node = pending.pop()
        if type(node) in (ast.Continue, ast.Break, ast.Return, ast.Raise):
            return True
        if type(node) in (ast.For, ast.AsyncFor, ast.While):
            pending.extend(node.orelse)  # its own ``break``/``continue`` end its passes, not ours
            pending.extend(child for child in ast.walk(node) if type(child) in (ast.Return, ast.Raise))
            continue
        if type(node) in (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda):
            continue
        pending.extend(ast.iter_child_nodes(node))
    return False


def _iterates_own_parts(loop, receiver: str) -> bool:
    """A ``for`` loop over what its object (``receiver``) holds (``self.layers``,
    ``self.body.named_children()``, ``enumerate(self.heads)``): the same items at each call of the method."""
    if type(loop) not in (ast.For, ast.AsyncFor):
        return False
    called = {id(call.func) for call in ast.walk(loop.iter) if type(call) is ast.Call}
    names = {name.id for name in ast.walk(loop.iter) if type(name) is ast.Name and id(name) not in called}
    return names == {receiver}


def _rebinds_each_pass(loop, names) -> bool:
    """Whether a ``for`` loop binds every one of ``names`` anew at each pass (its targets)."""
    if type(loop) not in (ast.For, ast.AsyncFor):
        return False
    bound = {node.id for node in ast.walk(loop.target) if type(node) is ast.Name}
    return bool(names) and all(name in bound for name in names)


def _captured_values(function) -> frozenset:
    """The names a nested function reads from the functions around it for their values (not
    only a size, a dtype or a device: ``ref.shape``), found once."""
    if function.captured is None:
        own = set(function.names) | function.bound_names
        loads, metadata = [], set()
        for node in descendants(function.node):
            if type(node) is ast.Name and type(node.ctx) is ast.Load and node.id not in own:
                loads.append(node)
            elif type(node) is ast.Attribute and "integer" in k.role_of("attribute", node.attr) | k.role_of(
                    "method", node.attr):
                metadata.add(id(node.value))
        function.captured = frozenset(node.id for node in loads if id(node) not in metadata)
    return function.captured


def _name_uses(function_node) -> dict:
    """Per name, its loads in the function and the functions nested in it (None for a
    ``global``/``nonlocal`` declaration of it); under the key None, the function's loops."""
    uses: dict = {}
    for node in descendants(function_node):
        kind = type(node)
        if kind is ast.Name and type(node.ctx) is ast.Load:
            uses.setdefault(node.id, []).append(node)
        elif kind in (ast.Global, ast.Nonlocal):
            for name in node.names:
                uses.setdefault(name, []).append(None)
        elif kind in (ast.For, ast.AsyncFor, ast.While):
            uses.setdefault(None, []).append(node)
    return uses


_SCALAR_KINDS = frozenset(("bool", "int", "number", "str", "none"))
_SEQUENCE_ONLY = (frozenset(("tuple",)), frozenset(("list",)))  # a value surely a tuple, or surely a list
_ARRAY_KINDS = frozenset(("ndarray",))
_SEQUENCE_KINDS = frozenset(("list", "tuple", "set"))
# the kinds an ``isinstance`` test against these classes proves
_ISINSTANCE_KINDS = {
    "torch.Tensor": TENSOR, "torch.nn.Parameter": TENSOR, "numpy.ndarray": kinds("ndarray"),
    "builtins.list": kinds("list"), "builtins.tuple": kinds("tuple"), "builtins.dict": kinds("dict"),
    "builtins.str": kinds("str"), "builtins.int": kinds("int"), "builtins.float": kinds("number"),
}


# a fact of a view whose strides are surely not contiguous: ``contiguous()`` of it copies
NONCONTIGUOUS = "noncontiguous"


def _broadcasts_a_new_unit_dim(node: ast.Call) -> bool:
    """``x.unsqueeze(d).expand(..., k)`` with a literal ``k >= 2`` at ``d`` (counted from the
    right): the unit dim it broadcasts gets stride 0 and size ``k``, which no contiguous
    tensor with elements has."""
    inner = node.func.value
    if type(inner) is not ast.Call or type(inner.func) is not ast.Attribute or inner.func.attr != "unsqueeze" \
            or len(inner.args) != 1 or _integer(inner.args[0]) is None:
        return False
    dim = _integer(inner.args[0])
    if dim >= 0:
        return False  # ``expand`` may add leading dims: only a position from the right is sure
    if len(node.args) == 1 and type(node.args[0]) is ast.BinOp and type(node.args[0].op) is ast.Add \
            and type(node.args[0].right) is ast.Tuple:  # ``x.shape + (2,)``: the trailing sizes
        sizes = node.args[0].right.elts
    elif node.args and all(_integer(argument) is not None for argument in node.args):
        sizes = node.args
    else:
        return False
    if -dim > len(sizes):
        return False
    size = _integer(sizes[dim])
    return size is not None and size >= 2


# attributes that lay a tensor out anew: ``w.T`` reverses its dims, ``w.mT`` swaps the last two
_LAYOUT_ATTRIBUTES = {"T": ("T",), "mT": ("transpose", -2, -1)}


def _module_cast(node: ast.Call) -> str:
    """The dtype ``m.to(...)`` names (``m.to(torch.float16)``, ``m.to(device, dtype=torch.bfloat16)``), else empty."""
    named = [dtype_named(place_of(argument) or "") for argument in list(node.args) + [
        keyword.value for keyword in node.keywords if keyword.arg == "dtype"]]
    named = [dtype for dtype in named if dtype]
    return named[0] if len(named) == 1 else ""


def _moved_only(node: ast.Call) -> bool:
    """``m.to("cuda")``, ``m.to(device=d)``: a move that casts nothing (a string or ``device=`` alone)."""
    return type(node.func) is ast.Attribute and node.func.attr == "to" and all(
        type(_constant(argument)) is str for argument in node.args) and all(
        keyword.arg in ("device", "non_blocking") for keyword in node.keywords) and bool(node.args or node.keywords)


def without_cuda(model, test, truth: bool) -> bool:
    """Whether a test that held (``truth``) or failed proves no CUDA device is in use on its path,
    where no copy is asynchronous: ``torch.cuda.is_available()`` failed (role ``cuda_test``),
    ``device.type == "cuda"`` failed or ``device.type == "cpu"`` held (role ``device_type``, a
    convention), ``x.is_cuda`` failed (role ``cuda_flag``, the same convention). A sync under
    such a test waits for every copy that can be in flight."""
    if type(test) is ast.Call and not test.args and not test.keywords:
        return not truth and "cuda_test" in k.role_of("function", model.qualify(place_of(test.func) or ""))
    if type(test) is ast.Attribute and "cuda_flag" in k.role_of("attribute", test.attr):
        return not truth  # ``if probs.is_cuda:`` failed: that tensor is on the host
    if type(test) is not ast.Compare or len(test.ops) != 1 or type(test.ops[0]) not in (ast.Eq, ast.NotEq):
        return False
    attribute, named = test.left, _constant(test.comparators[0])
    if type(attribute) not in (ast.Attribute, ast.Name):
        attribute, named = test.comparators[0], _constant(test.left)
    # ``device.type == "cuda"``, or a name holding the device's string (``dev == "cuda"``,
    # ``Transfer.tests_the_device`` says whether it does)
    if type(attribute) is ast.Attribute and "device_type" not in k.role_of("attribute", attribute.attr) \
            or type(attribute) not in (ast.Attribute, ast.Name):
        return False
    equal = truth if type(test.ops[0]) is ast.Eq else not truth  # the device type is the one named
    return named == "cuda" and not equal or named == "cpu" and equal


def _elementwise_layout(left: Value, right: Value) -> frozenset:
    """The layout fact of ``x + 1`` (a tensor of known layout and a Python number), else none."""
    tensor, other = (left, right) if left.is_tensor else (right, left)
    known = layout.decode(tensor.facts)
    if known is None or not other.kinds or not other.kinds <= _NUMERIC:
        return EMPTY
    result = layout.elementwise(known)
    return frozenset((layout.encode(result),)) if result is not None else EMPTY


def _nested_sizes(node) -> Optional[tuple]:
    """The sizes of nested literal lists of numbers (``[[1.0, 2.0], [3.0, 4.0]]``: ``(2, 2)``)."""
    if type(node) not in (ast.List, ast.Tuple):
        return () if type(_constant(node)) in (int, float, bool) else None
    inner = [_nested_sizes(item) for item in node.elts]
    if not inner or None in inner or len(set(inner)) != 1:
        return None
    return (len(inner),) + inner[0]


def forget_layout(storages: frozenset, state: dict) -> None:
    """Every place holding this memory no longer knows its layout (``x.t_()``, ``x.data = v``)."""
    for place, value in list(state.items()):
        if type(value) is Value and value.storages & storages and layout.decode(value.facts) is not None:
            state[place] = value._replace(facts=layout.without_layout(value.facts))


def _integer(node) -> Optional[int]:
    """The int a literal spells (``2``, ``-1``), else None."""
    if type(node) is ast.UnaryOp and type(node.op) is ast.USub:
        inner = _integer(node.operand)
        return None if inner is None else -inner
    value = _constant(node)
    return value if type(value) is int and type(value) is not bool else None


def _graph_kept(summary) -> bool:
    """Whether anything of what a call recorded may reach a backward: it returns, stores or hands
    out something (a graph tensor, or a value callers decide), or runs its own backward. A helper
    returning a number (``(w ** 2).sum().item()``) frees its graph, and with it what it saved."""
    returned = summary.returns
    return returned is None and summary.backward or returned is not None and bool(
        returned.grad or returned.graph or returned.grad_from or returned.kind_from or returned.called
        or returned.items or "?" in returned.kinds or returned.is_tensor) or bool(
        summary.stores or summary.closure_stores or summary.global_stores or summary.parameter_stores
        or summary.backward or summary.writes
        or summary.item_writes or summary.items_written or summary.keyed_items_written or summary.items_assigned
        or summary.attribute_writes
        or summary.writes_held)


def _saved_for_caller(summary, lines: tuple) -> frozenset:
    """What a call leaves saved for its caller: what the callee saved, but memory it made and
    returns only where a path saved it before returning it (``t = -x.sum()``, then ``return t *
    m`` on one path and ``return t`` on another: the ``t`` a caller gets was saved by nobody)."""
    returned = storages_held(summary.returns) if summary.returns is not None else EMPTY
    made_and_returned = frozenset(storage for storage in returned if allocated_in(storage, lines))
    return summary.saved - (made_and_returned - summary.saved_returned)


# aliases that span all of their source's memory (a reshape, a detach, a move to where it is, an
# array over it): made of a part of a base, they span that part of it
_WHOLE_OF_ITS_SOURCE = frozenset(("view", "detach", "move", "numpy", "from_numpy"))


def _site(node) -> tuple:
    """The allocation site of what ``node`` makes: its position, and its end where an operand
    it holds starts at the same place (``torch.sigmoid(g).clone()``: two allocations)."""
    first = _first_operand(node)
    while type(first) is ast.Attribute:
        first = first.value
    if first is not None and type(first) is not ast.Name and (first.lineno, first.col_offset) == (
            node.lineno, node.col_offset):
        return (node.lineno, node.col_offset, node.end_lineno, node.end_col_offset)
    return (node.lineno, node.col_offset)


def _first_operand(node):
    kind = type(node)
    if kind is ast.Call:
        return node.func
    if kind is ast.BinOp:
        return node.left
    if kind is ast.Compare:
        return node.left
    if kind is ast.Subscript or kind is ast.Attribute:
        return node.value
    return None


def _differentiable(copy: Value, roles) -> Value:
    """A copy autograd records (``w.clone()``): a non-leaf where its source requires grad."""
    return copy._replace(graph=copy.graph or copy.grad) if "differentiable" in roles else copy


def _copied(value: Value, node) -> Value:
    """A copy: the same kind, grad and items, every storage new."""
    items = None
    if value.items is not None:
        items = tuple((key, _copied(item, node)) for key, item in value.items)
    return value._replace(storages=frozenset((_site(node),)), fresh=True, graph=value.graph, pending=EMPTY,
                          items=items, facts=EMPTY, pinned=False, made=EMPTY)


_ITEM_DEPTH = 3  # containers nested deeper than this keep their innermost items as unknown


def _item_depth(value: Value, limit: int = _ITEM_DEPTH) -> int:
    """How deep containers nest in ``value`` (counted up to ``limit``)."""
    if value.items is None or limit == 0:
        return 0
    return 1 + max((_item_depth(item, limit - 1) for _, item in value.items), default=0)


def _filled(container: Value, stored: Value, instance) -> Value:
    """``container`` with the items a callee put in it (``stored``, over the callee's symbols)."""
    for key, item in stored.items:
        if item.storages or item.kind_from or item.kinds != UNKNOWN.kinds:
            container = with_item(container, key, instance.value(item))
    return container


def with_item(container: Value, key: str, value: Value) -> Value:
    """``container`` with ``value`` at ``key`` (joined into the ``[*]`` summary for any other
    key); a container whose items are unknown keeps the rest unknown. Nesting is bounded (a
    container stored in itself, ``node[k] = node``, would otherwise grow at every iteration)."""
    if _item_depth(value) >= _ITEM_DEPTH:
        value = value._replace(items=(("*", UNKNOWN),))
    items = dict(container.items if container.items is not None else (("*", UNKNOWN),))
    items[key] = value if key != "*" or key not in items else join(items[key], value)
    return container._replace(items=tuple(items.items()))


def _with_items(container: Value, keys: tuple, value: Value) -> Value:
    """``container`` with ``value`` at the nested ``keys`` (``('a', '0')`` for ``[a][0]``)."""
    if len(keys) == 1:
        return with_item(container, keys[0], value)
    inner = container.item(keys[0]) or UNKNOWN
    return with_item(container, keys[0], _with_items(inner, keys[1:], value))


def _may_need_grad(value: Optional[Value]) -> bool:
    """Whether autograd may compute a gradient for ``value``: a number, a constant or a tensor
    torch made without grad gets none; one known only by annotation, use or callers may."""
    if value is None:
        return False
    if value.grad or value.grad_from:
        return True
    if value.kind_from:  # what a caller passes decides its kind, and no caller's grad reaches it (``y / extent``)
        return False
    return "?" in value.kinds or value.is_tensor and value.evidence("kind") not in (Evidence.TORCH_API, Evidence.TENSOR_METHOD)


def _distribution_package(package: str) -> bool:
    """``torch.distributions`` or one of its modules (``torch.distributions.normal``)."""
    return "distribution" in k.role_of("package", package) or "distribution" in k.role_of(
        "package", package.rpartition(".")[0])


def weakest_kind(why: tuple, *operands: Value) -> tuple:
    """``why`` unless an operand is a tensor only by weak evidence: an operation a list or an
    ndarray also has (``w * 2``, ``w.sum()``) proves nothing more than its operands."""
    for operand in operands:
        evidence = operand.evidence("kind")
        if operand.is_tensor and (evidence is None or not evidence.strong):
            return tuple(pair for pair in why if pair[0] != "kind") + ((("kind", evidence),) if evidence else ())
    return why


_EXPRESSIONS = {
    ast.Name: Transfer.name,
    ast.Attribute: Transfer.attribute,
    ast.Subscript: Transfer.subscript,
    ast.Constant: Transfer.constant,
    ast.Tuple: Transfer.sequence,
    ast.List: Transfer.sequence,
    ast.Set: Transfer.sequence,
    ast.Dict: Transfer.dictionary,
    ast.ListComp: Transfer.comprehension,
    ast.SetComp: Transfer.comprehension,
    ast.GeneratorExp: Transfer.comprehension,
    ast.DictComp: Transfer.comprehension,
    ast.Lambda: Transfer.lambda_,
    ast.NamedExpr: Transfer.named,
    ast.IfExp: Transfer.conditional,
    ast.BoolOp: Transfer.boolean,
    ast.Compare: Transfer.compare,
    ast.UnaryOp: Transfer.unary,
    ast.BinOp: Transfer.binary,
    ast.Call: Transfer.call,
    ast.Await: lambda self, node, state: self.evaluate(node.value, state),
    ast.Yield: Transfer.yielded,
    ast.YieldFrom: Transfer.yielded,
    ast.Starred: lambda self, node, state: self.evaluate(node.value, state),
    ast.JoinedStr: lambda self, node, state: (self.evaluate_children(node, state), STRING)[1],
}


# ----- grad mode, views that cannot be written, and what backward frees (TEN209, TEN210, TEN307)

ITERATED = frozenset(("split:unbind() (iterating over it)",)) if "multi_output_view" in k.role_of(
    "syntax", "iteration") else EMPTY
UNVERSIONED = frozenset(("unversioned",))  # writes skip autograd's version counter (``.data``)


def _repeated_part(base: Value) -> frozenset:
    """``repeated:`` a part of what ``expand()`` made (``mask[b]``): other positions of the
    expanded tensor share its memory, so a write to the part changes them too."""
    return frozenset("repeated:" + fact.partition(":")[2] for fact in base.facts if fact.startswith("overlapping:"))


def _casts(value: Value) -> frozenset:
    """A summary's casts of what a caller passes (``CAST_TO``): a view of such a cast is of the same
    copy, or of the caller's tensor, as the cast is at each call site."""
    return frozenset(fact for fact in value.facts if fact.startswith(CAST_TO))


def view_facts(roles: frozenset, name: str, shown: str) -> frozenset:
    """What a view made by ``name`` (shown as ``shown``) is, when the knowledge says:
    ``overlapping:`` one memory location at many positions, ``split:`` an output of a
    multi-output view, ``rearranged:`` the same elements in another order."""
    if "overlapping" in roles:
        return frozenset((f"overlapping:{name}()",))
    if "multi_output_view" in roles:
        return frozenset(("split:" + shown,))
    if "rearrange" in roles:
        return frozenset(("rearranged:" + shown,))
    return EMPTY


def grad_enabled_by(model, context) -> bool:
    """Whether a ``with`` context turns recording for backward on: ``torch.enable_grad()``,
    ``torch.set_grad_enabled(True)``."""
    func = context.func if type(context) is ast.Call else context
    roles = k.role_of("function", model.qualify(place_of(func) or ""))
    arguments = context.args if type(context) is ast.Call else []
    return "grad_on" in roles or "grad_switch" in roles and bool(arguments) and _constant(arguments[0]) is True


def grad_disabled_by(model, context) -> bool:
    """Whether a ``with`` context (or a decorator) turns recording for backward off:
    ``torch.no_grad()``, ``torch.inference_mode()``, ``torch.set_grad_enabled(False)``."""
    func = context.func if type(context) is ast.Call else context
    qual = model.qualify(place_of(func) or "")
    roles = k.role_of("function", qual)
    arguments = context.args if type(context) is ast.Call else []
    if "grad_off" in roles:
        return not arguments or _constant(arguments[0]) is not False
    if "grad_switch" in roles:
        return bool(arguments) and _constant(arguments[0]) is False
    return False


# state keys: the parameters of the modules called so far on the path, and of those a backward
# reached (they have gradients an optimizer step applies)
CALLED_MODULES = "!called_modules"
# state key, in a summary: (parameter index, the aliases a write of it went through) pairs
WRITTEN_THROUGH = "!written_through"
# state key, in a summary: the aliases its writes of memory made elsewhere went through
HELD_WRITTEN_THROUGH = "!held_written_through"
# state key, in a generator's summary: the memory it yielded and writes again for a later item
REFILLS = "!refills"
# state keys a summary is made of that grow along the function, whatever block adds to them
# state key, in a summary: (parameter symbol, call site, arguments, keywords) per call of a parameter
PARAMETER_CALLS = "!parameter_calls"
# a fact: what a summary indexed out of a parameter whose kind its callers decide (``batch["x"]``,
# ``x[0]``): a part where a caller passes a tensor, an item where it passes a container
WITHIN_PASSED = "within_passed:"  # (and the keys it was indexed at, ``*`` where not a constant)
KEY_STEP = "\x00"  # between two keys of a ``WITHIN_PASSED`` path (a key's repr never holds it)
FACTORY_CALL = "factory_call:"  # a fact of a closure a factory of the file returned: that call's site
CAPTURED = "captured"  # a fact of a nested function's value: its items are the aliases it captured, by name
METHOD = "method"  # the last part of a parameter call's symbol where it calls a method of what is passed
# state key, in a summary: (comparison node, the values compared) per identity test of what callers pass
IDENTITY_TESTS = "!identity_tests"
_SUMMARY_RECORDS = ("!writes", "!writes_keyed", "!writes_unkeyed", "!item_writes", "!items_written", "!keyed_items_written", "!items_assigned", "!reads", "!writes_held",
                    "!reads_held", "!reads_held_made", "!retained", "!stepped", "!attribute_writes", WRITTEN_THROUGH, HELD_WRITTEN_THROUGH,
                    REFILLS, PARAMETER_CALLS, IDENTITY_TESTS)
BACKPROPAGATED = "!backpropagated"


def _written_name(target, state: dict) -> Value:
    """The named value a write goes through: ``b`` in ``b.view(-1)[i] += d`` (its aliases are
    the write's, the view of it made on the spot too)."""
    node = target
    while type(node) in (ast.Subscript, ast.Call, ast.Attribute) and place_of(node) not in state:
        node = node.func.value if type(node) is ast.Call and type(node.func) is ast.Attribute else getattr(
            node, "value", None)
    found = state.get(place_of(node)) if node is not None and place_of(node) else None
    return found if isinstance(found, Value) else NONE


def backpropagates(state: dict) -> None:
    """A backward gives gradients to the parameters of the modules called before it."""
    called = state.get(CALLED_MODULES, EMPTY)
    if called:
        state[BACKPROPAGATED] = state.get(BACKPROPAGATED, EMPTY) | called


def _creates_graph(node) -> bool:
    """``create_graph=`` anything but a constant False or None (``create_graph=not first_order``):
    the backward may record a graph of the gradients, to be differentiated again (an unrolled
    optimisation, a gradient penalty): the graphs it runs through are kept on purpose."""
    given = _keyword(node, "create_graph")
    return given is not None and not (type(given) is ast.Constant and given.value in (False, None))


def frees_saved(node, state: dict) -> None:
    """A backward frees what its graph saved, unless ``retain_graph=True`` keeps it, or
    ``create_graph`` does where ``retain_graph`` is not given (it defaults to ``create_graph``)."""
    retain = _keyword(node, "retain_graph") if node is not None else None
    kept = _constant(retain) is True if retain is not None else node is not None and _creates_graph(node)
    if not kept:
        state.pop(SAVED, None)


def _target_names(target) -> list:
    """The names a ``for`` target binds (``t``, ``k, v``)."""
    return [node.id for node in ast.walk(target) if type(node) is ast.Name]
