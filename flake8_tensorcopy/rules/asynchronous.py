"""TEN4xx: asynchronous copies between host and device (``non_blocking=True``).

Both rules look at what runs after the copy in the function that makes it, in program order
(the rest of its block, then, inside a loop, the next iteration up to the copy, then what follows
the enclosing statements), and stop at the first synchronization. Precision first: any
synchronization seen on the way, even in a branch, ends the search.
"""

from typing import Iterator, List, Optional, Set, Tuple

import libcst as cst

from flake8_tensorcopy.analysis.scope import TENSOR, dotted_name
from flake8_tensorcopy.analysis.statements import children_of
from flake8_tensorcopy.data import INPLACE_METHODS
from flake8_tensorcopy.fixes import Fix
from flake8_tensorcopy.rules.base import Rule, argument, short_source

# Method calls that make the host wait for the device: a stream's, an event's, the device's
# (``torch.cuda.synchronize()``), and blocking device-to-host reads on the same stream.
_SYNC_METHODS = frozenset({"synchronize", "wait_event"})
_BLOCKING_READS = frozenset({"item", "cpu", "tolist"})
# Reading a host tensor's values: methods and builtins that only a value (not a handle) needs.
_VALUE_METHODS = frozenset({"numpy", "tolist", "item", "sum", "mean", "max", "min", "any", "all", "argmax",
                            "equal", "eq", "ne", "allclose", "clone", "float", "double", "long", "int"})
_VALUE_BUILTINS = frozenset({"print", "float", "int", "bool", "list", "tuple", "str", "repr", "sum", "max", "min"})
_NUMBER_BUILTINS = frozenset({"float", "int", "bool"})
_GROWING = frozenset({"append", "extend", "insert"})
_LOOPS = (cst.For, cst.While)


def non_blocking_argument(call: cst.Call) -> Optional[cst.Arg]:
    """The ``non_blocking=True`` argument of a copy, if it has one."""
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == "non_blocking":
            value = arg.value
            return arg if type(value) is cst.Name and value.value == "True" else None
    return None


def blocking_fix(call: cst.Call, arg: cst.Arg) -> Fix:
    """The same copy with ``non_blocking=False``: it returns once the data has moved."""
    args = [a.with_changes(value=cst.Name("False")) if a is arg else a for a in call.args]
    return Fix(call.with_changes(args=args), safe=False)


def _is_cpu_literal(node: cst.BaseExpression) -> bool:
    if type(node) is cst.SimpleString:
        return node.evaluated_value == "cpu"
    if type(node) is cst.Call and (dotted_name(node.func) or "").rsplit(".", 1)[-1] == "device" and node.args:
        return _is_cpu_literal(node.args[0].value)
    return False


def _root(node: cst.BaseExpression) -> cst.BaseExpression:
    """``buf`` for ``buf[:n]`` and ``self.buf[2:]``: the tensor a slice views."""
    while type(node) is cst.Subscript:
        node = node.value
    return node


def _postorder(node: cst.CSTNode) -> Iterator[Tuple[cst.CSTNode, Tuple[cst.CSTNode, ...]]]:
    """Nodes in evaluation order (operands before the operation), each with its ancestors;
    an assignment's value before its targets. Nested functions and classes are not entered."""

    def walk(current, ancestors):
        if type(current) in (cst.FunctionDef, cst.ClassDef, cst.Lambda):
            return
        inner = ancestors + (current,)
        if type(current) in (cst.Assign, cst.AnnAssign, cst.AugAssign):
            children = [current.value] if current.value is not None else []
            children += [t.target for t in current.targets] if type(current) is cst.Assign else [current.target]
        else:
            children = children_of(current)
        for child in children:
            yield from walk(child, inner)
        yield current, ancestors

    yield from walk(node, ())


def _following(blocks: List[tuple]) -> Iterator[cst.CSTNode]:
    """Statements that may run after the current one, in order: the rest of each enclosing
    block; for a loop's body, the next iteration up to the statement holding the copy first."""
    for level, (statements, index) in enumerate(blocks):
        yield from statements[index + 1:]
        if level + 1 < len(blocks):
            outer_statements, outer_index = blocks[level + 1]
            outer = outer_statements[outer_index]
            if isinstance(outer, _LOOPS) and getattr(outer.body, "body", None) is statements:
                yield from statements[:index]


class _Scan:
    """Tells synchronizations apart while the statements after one copy are followed."""

    def __init__(self, recorded_before: Set[str]):
        self.recorded_before = recorded_before  # events recorded before the copy
        self.recorded_after: Set[str] = set()

    def is_sync(self, call: cst.Call, subject: Set[str]) -> bool:
        func = call.func
        if type(func) is cst.Name:
            return func.value == "synchronize"  # from torch.cuda import synchronize
        if type(func) is not cst.Attribute:
            return False
        method = func.attr.value
        receiver = dotted_name(func.value)
        if method == "record" and receiver is not None:
            self.recorded_after.add(receiver)
            return False
        if method in _SYNC_METHODS:
            waited = receiver if method == "synchronize" else (
                dotted_name(call.args[0].value) if call.args else None)
            return not (waited in self.recorded_before and waited not in self.recorded_after)
        if method in _BLOCKING_READS or (method == "to" and non_blocking_argument(call) is None and call.args
                                         and _is_cpu_literal(call.args[0].value)):
            return not (_names(func.value) & subject)
        return False


def _names(node: cst.CSTNode) -> Set[str]:
    found = set()
    stack = [node]
    while stack:
        current = stack.pop()
        if type(current) is cst.Name:
            found.add(current.value)
        elif type(current) is cst.Attribute:
            key = dotted_name(current)
            if key is not None:
                found.add(key)
        stack.extend(children_of(current))
    return found


def _recorded_before(function: Optional[cst.FunctionDef], copy: cst.Call) -> Set[str]:
    """Receivers of ``.record()`` calls that come before ``copy`` in the function."""
    recorded = set()
    if function is None:
        return recorded
    for node, _ancestors in _postorder(function.body):
        if node is copy:
            break
        if type(node) is cst.Call and type(node.func) is cst.Attribute and node.func.attr.value == "record":
            key = dotted_name(node.func.value)
            if key is not None:
                recorded.add(key)
    return recorded


def _statement_of(blocks: List[tuple]) -> Optional[cst.CSTNode]:
    return blocks[0][0][blocks[0][1]] if blocks else None


def _ancestors_of(statement: cst.CSTNode, target: cst.CSTNode) -> Optional[Tuple[cst.CSTNode, ...]]:
    for node, ancestors in _postorder(statement):
        if node is target:
            return ancestors
    return None


class HostReadBeforeSync(Rule):
    """## What it does
    Flags a device-to-host copy with `non_blocking=True` (`x.to("cpu", non_blocking=True)`,
    `.to(device="cpu", ...)`, `.to(torch.device("cpu"), ...)`, a name bound to the CPU device,
    or `host.copy_(x, non_blocking=True)` into a pinned host tensor) whose host result is read
    (`.numpy()`, `.tolist()`, `.item()`, indexing, `float()`, printing, comparing, returning it to
    the caller, iterating a list it was appended to) before any synchronization:
    `torch.cuda.synchronize()`, `stream.synchronize()`, `event.synchronize()` or
    `stream.wait_event(event)` of an event recorded after the copy, or a blocking
    device-to-host read (`.item()`, `.cpu()`, `.tolist()` of a device tensor). The finding is
    on the copy (where the fix goes) and names the line of the read.

    ## Why is this bad?
    On CUDA a non-blocking copy to the host returns before the data has arrived: the host
    tensor is allocated and handed back at once, and the device fills it when the stream gets
    there. Reading it before synchronizing reads whatever the buffer held. Measured on an H100
    (behind a busy stream): the read gave the wrong value 20 of 20 times at every size from 256
    to 16M elements. On CPU nothing happens: `non_blocking` changes nothing there, so the bug
    never shows in CPU tests. Incidents: pytorch#86264, #127612, #137951, sglang PR#16493,
    LightGlue PR#148, mrpro#984.

    ## Example
    ```python
    import torch

    def top_token(logits: torch.Tensor) -> int:
        host = logits.argmax(-1).to("cpu", non_blocking=True)
        return int(host[0])
    ```

    ## Use instead
    ```python
    import torch

    def top_token(logits: torch.Tensor) -> int:
        host = logits.argmax(-1).to("cpu", non_blocking=False)
        return int(host[0])
    ```
    (or keep `non_blocking=True` and call `torch.cuda.synchronize()` before the first read.)

    ## Fix safety
    Unsafe: the fix writes `non_blocking=False`, which makes the copy wait for the data (the
    values become right) but also waits for all work queued before it on the stream, which can
    cost the overlap the author wanted; a synchronization placed later, just before the first
    read, keeps more of it but cannot be written as a replacement of the copy.
    """

    code = "TEN401"
    summary = 'the host result of `.to("cpu", non_blocking=True)` read before synchronizing may be unfilled; synchronize first'
    calls = ("to", "copy_")

    def check_call(self, call: cst.Call, analysis) -> None:
        arg = non_blocking_argument(call)
        if arg is None or type(call.func) is not cst.Attribute:
            return
        receiver = call.func.value
        if call.func.attr.value == "to":
            device = argument(call, 0, "device")
            if device is None or not _is_host_device(device, analysis):
                return
            known_tensor = analysis.kind_of(receiver) == TENSOR
        else:
            if not call.args or not _is_pinned_buffer(receiver, analysis):
                return
            known_tensor = True
        read = _first_host_read(call, analysis, known_tensor)
        if read is not None:
            copy = short_source(analysis, call)
            analysis.report(
                self.code,
                call,
                lambda lines: f"'{copy}' returns before the data reaches the host, and it is read on line "
                f"{lines['host_read']} before any synchronization; use non_blocking=False or "
                "torch.cuda.synchronize() before the read",
                blocking_fix(call, arg),
                refs={"host_read": read},
            )


def _is_host_device(device: cst.BaseExpression, analysis) -> bool:
    """A CPU device: a literal, or a name whose every binding in sight is one."""
    if _is_cpu_literal(device):
        return True
    if type(device) is not cst.Name:
        return False
    values = _assigned_values(device.value, analysis)
    return bool(values) and all(_is_cpu_literal(value) for value in values)


def _assigned_values(name: str, analysis) -> List[cst.BaseExpression]:
    """The values assigned to ``name`` in the function being walked, or else at module level."""
    for owner in (analysis.function, analysis.module):
        if owner is None:
            continue
        values = []
        for node, _ancestors in _postorder(owner.body if type(owner) is cst.FunctionDef else owner):
            if type(node) is cst.Assign and any(type(t.target) is cst.Name and t.target.value == name
                                                for t in node.targets):
                values.append(node.value)
        if values:
            return values
    return []


def _is_pinned_buffer(node: cst.BaseExpression, analysis) -> bool:
    """A pinned host tensor (or a slice of one). Only into pinned memory is a device-to-host copy
    asynchronous: into pageable memory it returns once the data is there."""
    values = _buffer_values(_root(node), analysis)
    return bool(values) and all(_is_pinned_value(value) for value in values)


def _is_pinned_value(value: cst.BaseExpression) -> bool:
    """``t.pin_memory()``, or a factory called with ``pin_memory=True``."""
    if type(value) is not cst.Call:
        return False
    func = value.func
    if type(func) is cst.Attribute and func.attr.value == "pin_memory":
        return True
    pinned = argument(value, 99, "pin_memory")
    return type(pinned) is cst.Name and pinned.value == "True"


def _buffer_values(node: cst.BaseExpression, analysis) -> List[cst.BaseExpression]:
    """Every value ``node`` (a local name or ``self.attr``) is assigned in sight; None ones skipped."""
    if type(node) is cst.Name:
        return _assigned_values(node.value, analysis)
    key = dotted_name(node)
    if key is None or type(node) is not cst.Attribute or type(node.value) is not cst.Name:
        return []
    cls = _class_of(analysis)
    if cls is None:
        return []
    values = []
    for method in _methods(cls):
        self_name = _self_name(method)
        for small, _ancestors in _postorder(method.body):
            if type(small) is cst.Assign and not (type(small.value) is cst.Name and small.value.value == "None"):
                for target in small.targets:
                    if _is_self_attr(target.target, self_name, node.attr.value):
                        values.append(small.value)
    return values if node.value.value == _self_name(analysis.function) else []


def _class_of(analysis) -> Optional[cst.ClassDef]:
    function = analysis.function
    if function is None:
        return None
    for node in _classes(analysis.module):
        if any(statement is function for statement in node.body.body):
            return node
    return None


def _classes(module: cst.Module) -> Iterator[cst.ClassDef]:
    """Every class of the module, nested classes included (not those inside functions)."""
    stack = list(module.body)
    while stack:
        node = stack.pop()
        if type(node) is cst.ClassDef:
            yield node
            stack.extend(node.body.body)


def _methods(cls: cst.ClassDef) -> List[cst.FunctionDef]:
    return [statement for statement in cls.body.body if type(statement) is cst.FunctionDef]


def _self_name(function: Optional[cst.FunctionDef]) -> Optional[str]:
    if function is None or not function.params.params:
        return None
    return function.params.params[0].name.value


def _is_self_attr(node: cst.BaseExpression, self_name: Optional[str], attr: str) -> bool:
    return (type(node) is cst.Attribute and type(node.value) is cst.Name and node.value.value == self_name
            and node.attr.value == attr)


def _first_host_read(call: cst.Call, analysis, known_tensor: bool) -> Optional[cst.CSTNode]:
    """The first node that reads the copy's host result before a synchronization, if any."""
    blocks = analysis.enclosing_blocks()
    statement = _statement_of(blocks)
    if statement is None:
        return None
    ancestors = _ancestors_of(statement, call)
    if ancestors is None:
        return None
    holders: Set[str] = set()
    containers: Set[str] = set()
    if call.func.attr.value == "copy_":
        holders.add(dotted_name(_root(call.func.value)) or "")
    parent = ancestors[-1]
    if type(parent) is cst.Arg:
        grown = _list_grown_with(ancestors, analysis)
        if grown is not None:
            containers.add(grown)
        elif _reads_value(call, ancestors, known_tensor):
            return call
    elif type(parent) is cst.Assign and call is parent.value:
        holders.update(t.target.value for t in parent.targets if type(t.target) is cst.Name)
    elif type(parent) in (cst.Return, cst.Attribute, cst.Subscript, cst.Comparison) or (
            type(parent) is cst.ComparisonTarget):
        if _reads_value(call, ancestors, known_tensor):
            return call
    holders.discard("")
    if not holders and not containers:
        return None
    scan = _Scan(_recorded_before(analysis.function, call))
    subject = holders | containers
    for following in _following(blocks):
        for node, node_ancestors in _postorder(following):
            node_type = type(node)
            if node_type is cst.Call and scan.is_sync(node, subject):
                return None
            if node_type is cst.Name and node.value in subject:
                parent = node_ancestors[-1] if node_ancestors else None
                if _rebinds(node, parent):
                    subject.discard(node.value)
                    if not subject:
                        return None
                    continue
                if node.value in containers:
                    if not _only_grows(node, node_ancestors):
                        return node
                    continue
                grown = _list_grown_with(node_ancestors, analysis)
                if grown is not None:
                    containers.add(grown)
                    subject.add(grown)
                elif _reads_value(node, node_ancestors, known_tensor):
                    return node
    return None


def _list_grown_with(ancestors: tuple, analysis) -> Optional[str]:
    """``parts`` when the value is the argument of ``parts.append(...)`` on a local list."""
    if len(ancestors) < 2 or type(ancestors[-1]) is not cst.Arg or type(ancestors[-2]) is not cst.Call:
        return None
    grow = ancestors[-2].func
    if type(grow) is not cst.Attribute or grow.attr.value not in _GROWING or type(grow.value) is not cst.Name:
        return None
    values = _assigned_values(grow.value.value, analysis)
    return grow.value.value if values and all(type(value) is cst.List for value in values) else None


def _rebinds(name: cst.Name, parent: Optional[cst.CSTNode]) -> bool:
    if type(parent) is cst.AssignTarget or (type(parent) is cst.AnnAssign and parent.target is name):
        return True
    return type(parent) in (cst.For, cst.CompFor) and parent.target is name


def _only_grows(name: cst.Name, ancestors: tuple) -> bool:
    """``chunks.append(...)``, ``len(chunks)``: the list is used, not its tensors."""
    parent = ancestors[-1] if ancestors else None
    if type(parent) is cst.Attribute and parent.attr.value in _GROWING:
        return True
    if type(parent) is cst.Arg and len(ancestors) > 1:
        owner = ancestors[-2]
        return type(owner) is cst.Call and type(owner.func) is cst.Name and owner.func.value == "len"
    return False


def _reads_value(node: cst.BaseExpression, ancestors: tuple, known_tensor: bool) -> bool:
    """Whether this use of the host result reads its values (or hands it to the caller)."""
    parent = ancestors[-1] if ancestors else None
    parent_type = type(parent)
    if parent_type is cst.Attribute and parent.value is node:
        return parent.attr.value in _VALUE_METHODS
    if parent_type is cst.Subscript and parent.value is node:
        return True
    if parent_type is cst.Arg and len(ancestors) > 1:
        owner = ancestors[-2]
        if type(owner) is cst.Call and type(owner.func) is cst.Name:
            # print(m) or str(m) of what may be a module is no evidence; float(h) is
            return owner.func.value in _VALUE_BUILTINS and (known_tensor or owner.func.value in _NUMBER_BUILTINS)
        qualname = dotted_name(owner.func) if type(owner) is cst.Call else None
        return qualname is not None and qualname.split(".")[0] in ("np", "numpy") and known_tensor
    if not known_tensor:
        return False
    if parent_type in (cst.Return, cst.Yield, cst.BinaryOperation, cst.Comparison, cst.ComparisonTarget):
        return True
    return False


class PinnedSourceWrittenBeforeSync(Rule):
    """## What it does
    Flags a host-to-device copy with `non_blocking=True` (`src.to(device, non_blocking=True)`,
    `src.cuda(non_blocking=True)`, `dst.copy_(src, non_blocking=True)`) from a pinned host tensor
    (`.pin_memory()`, a `pin_memory=True` allocation, or a `self.` buffer assigned one) that is
    then written in place (an in-place method, slice or augmented assignment, `np.copyto` or a
    write through its `.numpy()` view, a function of the module that writes its argument) before
    any synchronization. A buffer kept on `self` counts as written when another method (or the
    same one, on its next call) writes it with no synchronization in between. The finding is on
    the copy and names the line of the write.

    ## Why is this bad?
    From pinned memory a non-blocking copy is a true DMA transfer that runs later on the stream:
    a write to the source before it has run changes what the device receives. Measured on an
    H100 behind a busy stream: the device got the new values 20 of 20 times from a pinned
    source, 0 of 20 from a pageable one (pageable sources are staged synchronously, so they are
    not flagged). On CPU nothing happens: `non_blocking` changes nothing there. The PyTorch
    tutorial on `non_blocking` and `pin_memory()` names this hazard.

    ## Example
    ```python
    import torch

    def feed(model, rows):
        staging = torch.zeros(1024, pin_memory=True)
        for row in rows:
            staging.copy_(row)
            model(staging.to("cuda", non_blocking=True))
    ```

    ## Use instead
    ```python
    import torch

    def feed(model, rows):
        staging = torch.zeros(1024, pin_memory=True)
        for row in rows:
            staging.copy_(row)
            model(staging.to("cuda", non_blocking=False))
    ```
    (or keep `non_blocking=True` and synchronize, or record and wait on an event, before the
    write; or copy from a fresh buffer.)

    ## Fix safety
    Unsafe: the fix writes `non_blocking=False` on the copy: from pinned memory the copy then
    returns only when the data is on the device, so the later write cannot reach it. It is the
    simplest correct fix that replaces only the copy; a `torch.cuda.synchronize()` just before
    the write would keep more overlap, but inserting a statement elsewhere is not a replacement
    of the flagged node, and waiting makes the host slower where the overlap mattered.
    """

    code = "TEN402"
    summary = "a pinned buffer written while its `non_blocking=True` copy to the device may still run; synchronize first"
    calls = ("to", "cuda", "copy_")
    reads = ("sharing",)  # a function that only writes may write a buffer another one copies from

    def check_call(self, call: cst.Call, analysis) -> None:
        arg = non_blocking_argument(call)
        if arg is None or type(call.func) is not cst.Attribute:
            return
        method = call.func.attr.value
        if method == "copy_":
            source = argument(call, 0, "src")
        else:
            source = call.func.value
            device = argument(call, 0, "device")
            if method == "to" and (device is None or _is_host_device(device, analysis)):
                return
        if source is None:
            return
        buffer = _root(source)
        if not _is_pinned_buffer(buffer, analysis):
            return
        write = _first_write(call, buffer, analysis)
        if write is not None:
            copy = short_source(analysis, call)
            analysis.report(
                self.code,
                call,
                lambda lines: f"'{copy}' copies from pinned memory after it returns, and the source is "
                f"written on line {lines['write']} before any synchronization; use non_blocking=False or "
                "synchronize before the write",
                blocking_fix(call, arg),
                refs={"write": write},
            )


def _first_write(call: cst.Call, buffer: cst.BaseExpression, analysis) -> Optional[cst.CSTNode]:
    blocks = analysis.enclosing_blocks()
    statement = _statement_of(blocks)
    if statement is None:
        return None
    key = dotted_name(buffer)
    views = _numpy_views(buffer, analysis)
    subject = {key} | views
    scan = _Scan(_recorded_before(analysis.function, call))
    for following in _following(blocks):
        for node, ancestors in _postorder(following):
            if type(node) is cst.Call:
                if scan.is_sync(node, set()):
                    return None
                if _writes(node, subject, analysis):
                    return node
            elif type(node) in (cst.Assign, cst.AugAssign) and _assigns_into(node, subject):
                return node
    if type(buffer) is cst.Attribute and not scan.recorded_after:
        return _write_elsewhere(buffer, analysis)
    return None


def _numpy_views(buffer: cst.BaseExpression, analysis) -> Set[str]:
    """Names (``view``, ``self.np``) assigned ``buffer.numpy()`` in sight."""
    key = dotted_name(buffer)
    views = set()
    cls = _class_of(analysis)
    owners = [analysis.function] if type(buffer) is cst.Name else _methods(cls) if cls is not None else []
    for owner in owners:
        if owner is None:
            continue
        for node, _ancestors in _postorder(owner.body):
            value = getattr(node, "value", None)
            if (type(node) is cst.Assign and type(value) is cst.Call and type(value.func) is cst.Attribute
                    and value.func.attr.value == "numpy" and dotted_name(value.func.value) == key):
                views.update(dotted_name(t.target) for t in node.targets if dotted_name(t.target))
    return views


def _writes(call: cst.Call, subject: Set[str], analysis) -> bool:
    func = call.func
    if type(func) is cst.Attribute and func.attr.value in INPLACE_METHODS:
        return dotted_name(_root(func.value)) in subject
    name = dotted_name(func)
    positional = [arg.value for arg in call.args if arg.keyword is None]
    if name in ("np.copyto", "numpy.copyto") and positional:
        return dotted_name(_root(positional[0])) in subject
    if type(func) is cst.Name:
        for index in analysis.aliases.param_writes(func.value):
            if index < len(positional) and dotted_name(_root(positional[index])) in subject:
                return True
    return False


def _assigns_into(node, subject: Set[str]) -> bool:
    targets = [t.target for t in node.targets] if type(node) is cst.Assign else [node.target]
    for target in targets:
        if type(node) is cst.AugAssign or type(target) is cst.Subscript:
            if dotted_name(_root(target)) in subject:
                return True
    return False


def _write_elsewhere(buffer: cst.Attribute, analysis) -> Optional[cst.CSTNode]:
    """A write to the ``self.`` buffer (or its numpy view) in a method of its class other than
    ``__init__``, or through an instance of the class in a function of the module, that no
    synchronization precedes in its function: it runs while the copy may still be in flight."""
    cls = _class_of(analysis)
    if cls is None:
        return None
    attrs = {buffer.attr.value} | {view.split(".", 1)[1] for view in _numpy_views(buffer, analysis) if "." in view}
    functions = [(method, _self_name(method)) for method in _methods(cls) if method.name.value != "__init__"]
    for statement in analysis.module.body:
        if type(statement) is cst.FunctionDef:
            for param in statement.params.params:
                annotation = param.annotation.annotation if param.annotation is not None else None
                if type(annotation) is cst.Name and annotation.value == cls.name.value:
                    functions.append((statement, param.name.value))
    for function, owner in functions:
        subject = {f"{owner}.{attr}" for attr in attrs}
        scan = _Scan(set())
        for node, _ancestors in _postorder(function.body):
            if type(node) is cst.Call:
                if scan.is_sync(node, set()):
                    break
                if _writes(node, subject, analysis):
                    return node
            elif type(node) in (cst.Assign, cst.AugAssign) and _assigns_into(node, subject):
                return node
    return None


RULES = (HostReadBeforeSync(), PinnedSourceWrittenBeforeSync())
