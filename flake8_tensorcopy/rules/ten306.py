"""TEN306: a tensor that requires grad kept by an accumulator across loop iterations."""

import ast
import builtins

from flake8_tensorcopy import knowledge as k
from flake8_tensorcopy.knowledge.conventions import loss_named
from flake8_tensorcopy.fixes import Fix, method
from flake8_tensorcopy.model.places import inside, place_of, split_items
from flake8_tensorcopy.model.summaries import allocated_in
from flake8_tensorcopy.model.values import holds_a_graph, storages_held
from flake8_tensorcopy.rules.base import Rule, short_source, suggestion


_BUILTINS = frozenset(dir(builtins))
MODULE = frozenset(("module",))


def _converts(name: str) -> bool:
    """A builtin or method making a Python value of a tensor (``float``, ``print``, ``.item()``)."""
    roles = k.role_of("function", "builtins." + name) | k.role_of("method", name)
    return bool(roles & {"host_read", "shows", "value_read"}) or name in ("len", "round")


def _as_number(call) -> bool:
    """A call that reads its arguments' values (``float(total)``), keeping no graph."""
    return _converts(str(call.detail.get("callee")))


class GraphKeptAcrossIterations(Rule):
    """
    ## What it does
    Flags a tensor that requires grad (a loss, an output) accumulated or stored across loop
    iterations (`total += loss`, `total = total + loss`, a smoothed `0.9 * smooth + 0.1 * loss`,
    `losses.append(loss)`, `losses = [step(b) for b in batches]`) where the loop
    itself runs `backward()` or an optimizer step (whatever is done with the total later), or
    where the total is later read as a number (`float(total)`), or computed into values that
    keep no graph (`torch.cat(preds).argmax(-1)`, `.tolist()`), and never handed on as a
    tensor, or handed back (`return total / len(loader)`) to callers of the file that all read
    only its value (`.item()`, `float()`, printing) where grad is recorded. An accumulator the
    object or a caller holds (`self.losses`, a `history` list passed in) outlives the loop that
    fills it; one on a method's own object (`self.total += loss` in a training step) is kept
    across the method's calls in the same way where the method trains or a loop that trains
    calls it, unless the method resets it first. A `backward()` through the accumulator
    (gradient accumulation on purpose) keeps it silent, and so does a loop whose backward is
    `autograd.grad(..., create_graph=True)` (an unrolled optimisation differentiated through).

    ## Why is this bad?
    Each stored tensor keeps its whole autograd graph alive until the accumulator dies:
    memory grows every iteration, often until the GPU runs out.

    ## Example
    ```python
    import torch.nn.functional as F
    from torch import nn

    def epoch(model: nn.Module, batches):
        total = 0.0
        for x, y in batches:
            loss = F.mse_loss(model(x), y)
            loss.backward()
            total += loss
        return float(total) / len(batches)
    ```

    ## Use instead
    ```python
    import torch.nn.functional as F
    from torch import nn

    def epoch(model: nn.Module, batches):
        total = 0.0
        for x, y in batches:
            loss = F.mse_loss(model(x), y)
            loss.backward()
            total += loss.item()
        return total / len(batches)
    ```

    ## Fix safety
    Unsafe: the accumulator holds numbers (or detached tensors) instead of graph tensors.
    """

    code = "TEN306"
    summary = "a loss kept across loop iterations keeps every graph alive; use `loss.item()`/`.detach()`"
    events = ("accumulation",)

    def query(self, model, site) -> None:
        by_function: dict = {}
        for event in model.events.events:
            by_function.setdefault(id(event.function), []).append(event)
        for event in model.events.find("accumulate"):
            same = by_function[id(event.function)]
            if event.value.kinds == MODULE:
                continue  # ``self.history.append(self.inner)``: a module keeps no graph
            if (event.value.graph or _proved_graph(event, same)) and self._kept_across(model, event, same):
                self._report(site, event, _span(model, event))
            elif _holds_graph(event.value) and self._kept_across(model, event, same):
                self._report_container(site, event, _span(model, event))

    def _kept_across(self, model, event, same: list) -> bool:
        """Whether the accumulator outlives the iterations of a loop holding the event and keeps
        the graphs for nothing: the loop trains, or only the total's value is used later; and
        no backward runs through it."""
        events = model.events
        comprehension = event.detail.get("comprehension")  # ``losses = [step(b) for b in batches]``: its own loop
        loop = events.innermost_loop(event) if comprehension is None else None
        if comprehension is None and not loop:
            return self._kept_across_calls(model, event, same) or _kept_by_the_module_across_calls(model, event, same)
        if loop and self._kept_across_calls(model, event, same):
            return True  # ``for v in metrics.values(): self.rows.append(v)``: kept across the method's calls

        in_loop = [other for other in same if (inside(other.node, comprehension) if loop is None else other.block in loop)]
        root = split_items(event.place or "")[0]  # ``stats['loss'] += loss`` lives in ``stats``
        binds = [other for other in same if other.kind == "bind" and other.place in (event.place, root)]
        if any(bind in in_loop and not event.node.lineno <= bind.line <= event.node.end_lineno for bind in binds) \
                or any(_emptied(other, root) for other in in_loop):
            return False  # reset every iteration, or kept to a window (``history.clear()``, ``history.pop(0)``)
        if not any(bind not in in_loop for bind in binds) and not _held_by_the_caller(event, root) \
                and not _held_by_the_module(model, event, root):
            return False  # bound elsewhere: nothing says it outlives the loop
        own = storages_held(event.detail["old"]) - storages_held(event.value)  # the accumulator's, not this step's
        held = own | event.value.storages
        for other in same:
            if other.kind == "backward" and other.value is not None and storages_held(other.value) & (
                    own if other in in_loop else held):
                return False  # backward through what it kept: on purpose
        if any(_trains(other) and (loop is None or events.innermost_loop(other) == loop) for other in in_loop):
            return True  # each iteration trains: what it keeps is spent
        later = [other for other in same if events.after(event, other)]
        if not any(bind not in in_loop for bind in binds) and not _callers_backpropagate_nothing(model, event.function):
            return False  # the caller's container: it may backpropagate through what it holds
        if not any(other.kind in ("backward", "step") for other in same) and _returned_for_its_value(
                model, event, root, later):
            return True  # ``return total / len(loader)`` to callers that read only its value
        held = _derived(later, held)  # ``torch.cat(outputs)``: the kept graphs live on in what is computed of them
        return (any(other.kind == "read" and _converts(str(other.detail.get("value_read")))
                    and storages_held(other.value) & held or _spent(later, other, held) for other in later)
                and not any(_kept_as_tensor(model, other, held) and not _torch_operation(later, other)
                            or other.kind == "backward" for other in later))

    def _kept_across_calls(self, model, event, same: list) -> bool:
        """An accumulator on the method's own object (``self.total += loss``): each call of the
        method is an iteration of its caller's loop. Kept across them where the method does
        not reset it before, no backward anywhere runs through it, and the method trains
        (backward or a step), a loop that trains calls it, or only the total's value is read
        later, in any method."""
        function = event.function
        receiver = function.names[0] + "." if getattr(function, "receiver_offset", 0) else None
        if receiver is None or not (event.place or "").startswith(receiver):
            return False
        root = split_items(event.place)[0]
        events = model.events
        if any(other.kind == "bind" and other.place in (event.place, root) and events.after(other, event)
               and not event.node.lineno <= other.line <= event.node.end_lineno for other in same):
            return False  # reset by this call before it adds
        # what the object held before this call added to it; as other methods name it, the
        # objects this method allocated are sites (here: an earlier call's, ``("earlier", site)``)
        own = storages_held(event.detail["old"]) - storages_held(event.value)
        held = _current(own | event.value.storages)
        everywhere = model.events.events
        if any(other.kind == "backward" and other.value is not None and (
                storages_held(other.value) & own if other.function is function
                else _kept_elsewhere(other) & held) for other in everywhere):
            return False  # backward through what it kept: on purpose
        if any(_trains(other) for other in same) or _called_in_a_training_loop(model, function):
            return True  # each call trains, or is a step of a loop that trains: what it keeps is spent
        return any(other.kind == "read" and _converts(str(other.detail.get("value_read")))
                   and _current(storages_held(other.value)) & held for other in everywhere) \
            and not any(_kept_as_tensor(model, other, held) for other in everywhere)

    def _report_container(self, site, event, span: str) -> None:
        """A container holding a graph tensor kept across iterations: the graph item is inside
        it, so no fix rewrites the whole container."""
        statement, value = site.node_of(event.node), site.node_of(event.detail["added"])
        if statement is None or value is None:
            return
        site.report(self.code, statement,
                    f"'{event.place}' keeps {short_source(site, value)}, which holds a tensor with its whole autograd "
                    f"graph, alive across {span}; keep its .item() (or .detach()) instead")

    def _report(self, site, event, span: str) -> None:
        statement, value = site.node_of(event.node), site.node_of(event.detail["added"])
        if statement is None or value is None:
            return
        if event.detail.get("of_items"):  # ``history.extend([loss])``: the graph is an item of what it adds
            self._report_container(site, event, span)
            return
        # named by the step's operand (``loss`` of ``loss if s is None else 0.9 * s + 0.1 * loss``),
        # fixed on all that is added (the whole conditional)
        shown = site.node_of(event.detail.get("shown") or event.detail["added"]) or value
        item, detached = (suggestion(site, method(shown, name), shown) for name in ("item", "detach"))
        advice = f"accumulate {item} (or {detached})" if _scalar(event.detail.get("shown") or event.detail["added"]) \
            else f"keep {detached}"
        site.report(self.code, statement,
                    f"'{event.place}' keeps {short_source(site, shown)} and its whole autograd graph alive across "
                    f"{span}; {advice}",
                    Fix(statement.deep_replace(value, method(value, "detach")), safe=False))


def _scalar(node) -> bool:
    """Whether what is added is a single number's tensor, so ``.item()`` can take it: a loss or a
    full reduction (``loss``, ``F.mse_loss(...)``, ``out.sum()``), not a batch of outputs (``model(x)``)."""
    while type(node) in (ast.BinOp, ast.UnaryOp):  # ``0.1 * loss``, ``-loss``: the tensor operand's shape
        node = node.right if type(node) is ast.BinOp and type(node.left) is ast.Constant else getattr(
            node, "left", getattr(node, "operand", None))
    if type(node) is ast.Call:
        if type(node.func) is ast.Attribute and "full_reduction" in k.role_of("method", node.func.attr):
            return not node.args and not node.keywords
        node = node.func
    name = place_of(node) or ""
    return loss_named(name.rpartition(".")[2]) or "loss" in k.role_of("function", name)


def _span(model, event) -> str:
    """What the accumulator outlives: a loop's iterations, or the calls of its method."""
    if event.detail.get("comprehension") is not None or model.events.innermost_loop(event):
        return "iterations"
    return f"calls of {event.function.node.name}()"


def _current(storages: frozenset) -> frozenset:
    """Storages with an earlier call's object named as its site (``("earlier", site)``)."""
    return frozenset(storage[1] if type(storage) is tuple and storage[:1] == ("earlier",) else storage
                     for storage in storages)


def _held_by_the_caller(event, root: str) -> bool:
    """An accumulator the caller holds, so it outlives the loop: an attribute or an item of a
    parameter (``self.losses``, ``stats["loss"]``), or a parameter's container grown in place
    (``history.append(loss)``); not a parameter's name rebound to a new sum (``y = y + d``)."""
    head = root.split(".", 1)[0].split("[", 1)[0]
    if head not in getattr(event.function, "names", ()):
        return False
    return event.place != head or type(event.node) is ast.Call


def _emptied(event, root: str) -> bool:
    """A call in the loop emptying the accumulator or taking an item out of it (``clear()``,
    ``pop(0)``): it holds a bounded number of graphs, not one per iteration."""
    func = getattr(event.node, "func", None) if event.kind == "call" else None
    return event.detail.get("callee") in k.CONTAINER_TAKING and type(func) is ast.Attribute \
        and place_of(func.value) == root


def _kept_by_the_module_across_calls(model, event, same: list) -> bool:
    """A list of the module a training step fills (``history.append(loss)`` in an optimizer's
    closure, ``opt.step(closure)``): each call of the function is an iteration of its caller's
    loop, and the list outlives them all, unless the function empties or rebinds it first."""
    root = split_items(event.place or "")[0]
    if not _held_by_the_module(model, event, root) or any(
            other.kind == "bind" and other.place == root or _emptied(other, root) for other in same):
        return False
    held = storages_held(event.value)
    if any(other.kind == "backward" and other.value is not None and storages_held(other.value) & held
           and model.events.after(event, other) for other in model.events.events):
        return False  # backward through what it kept: on purpose
    return any(_trains(other) for other in same)


def _held_by_the_module(model, event, root: str) -> bool:
    """An accumulator a function fills in a name of the module (``loss_history.append(loss)``
    with ``loss_history = []`` at the top of the file): it outlives every call of the function."""
    head = root.split(".", 1)[0].split("[", 1)[0]
    function = event.function
    return function is not model.module and head in model.module_variables and (
        head not in function.bound_names or head in function.graph.declared_global)


def _returned_for_its_value(model, event, root: str, later: list) -> bool:
    """Whether the function hands the total back as a graph tensor computed from the
    accumulator (``return total / len(loader)``), or the list it filled (``return losses``), and
    every caller of the file reads only its values (``.item()``, ``float()``, printing) and hands
    it on nowhere as a tensor: the graphs of all iterations were kept for a number (the PyTorch
    FAQ's evaluation-loop leak)."""
    returns = [other for other in later if other.kind == "return" and holds_a_graph(other.value)
               and any(place_of(node) == root for node in ast.walk(other.node))]
    if not returns:
        return False
    calls = [call for call in model.events.find("call") if call.detail.get("callee") == event.function.name
             and call.value is not None and call.value.storages
             and call.detail.get("grad_mode", True)]  # under ``torch.no_grad()`` the loop builds no graph
    if not calls:
        return False
    for call in calls:
        result = storages_held(call.value)  # (``return losses``: the list and the losses in it)
        uses = [other for other in model.events.events if other.function is call.function and other is not call
                and other.value is not None and storages_held(other.value) & result]
        if not any(use.kind == "read" and _converts(str(use.detail.get("value_read"))) for use in uses) or any(
                use.kind in ("backward", "accumulate") or _kept_as_tensor(model, use, result) for use in uses):
            return False
    return True


def _callers_backpropagate_nothing(model, function) -> bool:
    """Whether the file calls ``function`` and no caller runs a backward after the call: then
    what it keeps in a container its caller handed it is read for its values only."""
    events = model.events
    calls = [call for call in events.find("call") if call.detail.get("callee") == function.name]
    return bool(calls) and not any(backward.function is call.function and events.after(call, backward)
                                   for call in calls for backward in events.find("backward"))


def _called_in_a_training_loop(model, function) -> bool:
    """Whether the file calls ``function`` in a loop that runs a backward or an optimizer step
    (``for batch in loader: loss.backward(); meter.update(loss)``)."""
    events = model.events
    for call in events.find("call"):
        if call.detail.get("callee") != function.name:
            continue
        loop = events.innermost_loop(call)
        if loop and any(_trains(other) and other.function is call.function and other.block in loop
                        for other in events.events):
            return True
    return False


def _trains(event) -> bool:
    """An optimizer step, or a backward that spends its graph (not ``create_graph=True``, which
    builds on it: an unrolled optimisation keeps each step's graph on purpose)."""
    return event.kind == "step" or event.kind == "backward" and not event.detail.get("create_graph")


def _kept_elsewhere(event) -> frozenset:
    """What an event of other code holds that it did not allocate itself: its own new memory
    (this call's, or this iteration's of a loop in module-level code) is no object the
    accumulator kept from before."""
    node = event.function.node
    lines = (1, float("inf")) if type(node) is ast.Module else (node.lineno, node.end_lineno)
    return frozenset(storage for storage in _current(storages_held(event.value)) if not allocated_in(storage, lines))


def _holds_graph(value) -> bool:
    """A container (``{"loss": loss, "step": i}``) one of whose items is a graph tensor."""
    return value.items is not None and any(holds_a_graph(item) for _, item in value.items)


def _proved_graph(event, same: list) -> bool:
    """``running += loss`` then ``loss.backward()`` later in the same block, with ``loss`` not
    rebound in between: backward runs only on a graph output, so that value was one."""
    place = event.detail.get("added")
    name = place.id if type(place) is ast.Name else None
    if name is None or "?" not in event.value.kinds:
        return False
    later = [other for other in same if other.block == event.block and other.order > event.order
             and other.place == name]
    for other in sorted(later, key=lambda found: found.order):
        if other.kind == "bind":
            return False
        if other.kind == "backward":
            return True
    return False


def _receiver_of(later: list, call):
    """The read of the tensor a method call is made on (``stacked`` of ``stacked.argmax(-1)``)."""
    if type(call.node) is not ast.Call or type(call.node.func) is not ast.Attribute:
        return None
    receiver = call.node.func.value
    return next((other for other in later if other.kind == "read" and other.node is receiver
                 and other.detail.get("value_read") == "tensor_method"), None)


def _torch_operation(later: list, call) -> bool:
    """A call of a torch function or of a tensor's method: what it returns is all it keeps."""
    return call.kind == "call" and (str(call.detail.get("callee")).startswith("torch.")
                                    or _receiver_of(later, call) is not None)


def _computed_of(later: list, call, held: frozenset) -> bool:
    """Whether a torch operation is given, or called on, what ``held`` names."""
    receiver = _receiver_of(later, call)
    return _torch_operation(later, call) and (_holds_any(call, held) or receiver is not None and bool(
        storages_held(receiver.value) & held))


def _derived(later: list, held: frozenset) -> frozenset:
    """``held`` and what torch operations compute of it, in order, keeping a graph
    (``torch.cat(all_logits)``, ``stacked.mean(0)``): the graphs the accumulator kept live on there."""
    for other in later:
        if other.kind == "call" and other.value is not None and other.value.graph and _computed_of(later, other, held):
            held = held | other.value.storages
    return held


def _spent(later: list, call, held: frozenset) -> bool:
    """A torch operation on what the accumulator holds whose result keeps no graph
    (``stacked.argmax(-1)``, ``torch.cat(outputs).tolist()``): only the values were wanted. Not
    ``torch.tensor(outputs)``, which TEN106 reports: a graph dropped there was likely wanted."""
    return call.kind == "call" and call.value is not None and not call.value.graph \
        and not holds_a_graph(call.value) and _computed_of(later, call, held) \
        and "constructs" not in k.role_of("function", str(call.detail.get("callee")))


def _holds_any(call, held: frozenset) -> bool:
    """Whether a call is given what the accumulator holds."""
    return any(storages_held(argument) & held for argument in call.detail.get("arguments", ()))


def _kept_as_tensor(model, event, held: frozenset) -> bool:
    """Whether an event hands on what the accumulator holds as a tensor: returned, given to
    code the model cannot see, or to a call other than a number conversion (of a function of
    the file: one whose summary runs backward or returns what it was given)."""
    if event.kind in ("return", "escape"):
        return bool(storages_held(event.value) & held) if event.value is not None else False
    if event.kind != "call" or _as_number(event) or not _holds_any(event, held):
        return False
    if event.detail.get("callee") in _BUILTINS:  # ``getattr(total, "requires_grad")``: what it makes is all
        return event.value.graph or bool(storages_held(event.value) & held)
    function = model.functions_by_name.get(event.detail.get("callee"))
    summary = model.summary(function) if function is not None else None
    if summary is None:
        return True
    returned = summary.returns
    return summary.backward or returned is not None and bool(
        returned.kind_from or returned.grad_from or any(storage[:1] == ("param",) for storage in returned.storages))


RULES = (GraphKeptAcrossIterations(),)
