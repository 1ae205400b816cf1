"""TEN4xx: asynchronous copies between host and device (``non_blocking=True``), as queries of
the model: its ``copy-start`` events (to the host, or from a pinned host tensor), the host reads
and in-place writes after them, and the copies still in flight there. A sync counts only where
it waits for the copy on every path (``if flag: torch.cuda.synchronize()`` does not; under
``if torch.cuda.is_available():`` or ``if device.type == "cuda":`` it does, since on the other
path no copy is asynchronous).
"""

from typing import Callable, List, Optional

import libcst as cst

from flake8_tensorcopy.fixes import Fix
from flake8_tensorcopy.model.values import ENTRY
from flake8_tensorcopy.rules.base import Rule, short_source
from flake8_tensorcopy.rules.sharing import allocated_anew


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


def _first(copy, hazards: list):
    """The hazard to name: in the copy's function after it, else earlier there (the next
    iteration of a loop), else in another function; the earliest line first."""
    return min(hazards, key=lambda event: (event.function is not copy.function, event.line < copy.line,
                                           event.line, event.node.col_offset))


def _part_of(node, call) -> bool:
    """Whether ``node`` is part of the copy's own call (``self.buf[:n]`` in ``self.buf[:n].copy_(...)``):
    evaluated to say where the copy goes, it reads nothing the copy fills."""
    return (call.lineno, call.col_offset) <= (node.lineno, node.col_offset) and (
        node.end_lineno, node.end_col_offset) <= (call.end_lineno, call.end_col_offset)


def _report(rule: Rule, site, copy, hazard, text: Callable[[str, int], str]) -> None:
    call = site.node_of(copy.node)
    arg = non_blocking_argument(call) if call is not None else None
    if arg is not None:
        site.report(rule.code, call, text(short_source(site, call), hazard.line), blocking_fix(call, arg))


class HostReadBeforeSync(Rule):
    """## What it does
    Flags a device-to-host copy with `non_blocking=True` (`x.to("cpu", non_blocking=True)`,
    `.to(device="cpu", ...)`, `.to(torch.device("cpu"), ...)`, a name bound to the CPU device,
    or `host.copy_(x, non_blocking=True)` into a pinned host tensor) whose host result is read
    (`.numpy()`, `.tolist()`, `.item()`, indexing, `float()`, printing, comparing, returning it to
    the caller, iterating a list it was appended to) before any synchronization:
    `torch.cuda.synchronize()`, `stream.synchronize()`, `event.synchronize()` or
    `stream.wait_event(event)` of an event recorded after the copy, or a blocking
    device-to-host read (`.item()`, `.cpu()`, `.tolist()` of a device tensor, or of one on the
    device the program picks: `"cuda" if torch.cuda.is_available() else "cpu"`), also one under
    `if torch.cuda.is_available():` or `if device.type == "cuda":` (without CUDA no copy is
    asynchronous; a program testing its device's type is taken to put its tensors there). A copy into a
    slice (`host[:n].copy_(x, non_blocking=True)`) fills the whole tensor's memory. A buffer kept
    on the object (`self.buf.copy_(x, non_blocking=True)`) also counts as read where another
    method (or the same one, on its next call) reads it before synchronizing while a method left
    the copy in flight. The finding is on the copy (where the fix goes) and names the line of the read.

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
    events = ("non-blocking copy",)

    def query(self, model, site) -> None:
        events = model.events
        copies = [event for event in events.find("copy-start") if event.detail["to_host"]]
        if not copies:
            return
        called = model.called()
        # a read on the host, or a return to a caller outside the file (one inside reads it itself)
        reads = [event for event in events.events if events.unsynced(event) and (
            event.kind == "read" and event.detail.get("value_read")
            or event.kind == "return" and event.function.name not in called)]
        for copy in copies:
            hazards = [read for read in reads if copy.detail["copy"] in events.unsynced(read)
                       and not _part_of(read.node, copy.node)]
            if hazards:
                _report(self, site, copy, _first(copy, hazards), lambda source, line: (
                    f"'{source}' returns before the data reaches the host, and it is read on line {line} "
                    "before any synchronization; use non_blocking=False or torch.cuda.synchronize() before the read"))


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
    events = ("non-blocking copy",)

    def query(self, model, site) -> None:
        events = model.events
        copies = [event for event in events.find("copy-start")
                  if not event.detail["to_host"] and event.detail["source"].pinned]
        if not copies:
            return
        writes = events.find("write")
        for copy in copies:
            hazards = _writes_in_flight(model, copy, writes)
            if hazards:
                _report(self, site, copy, _first(copy, hazards), lambda source, line: (
                    f"'{source}' copies from pinned memory after it returns, and the source is written on line "
                    f"{line} before any synchronization; use non_blocking=False or synchronize before the write"))


def _writes_in_flight(model, copy, writes: list) -> List:
    """Writes to the copy's source while it may run: where the copy is in flight, or, when the
    copy outlives its function, in a function (not a constructor) that may be called then and
    writes before any sync of its own. Not a write of memory made anew since the copy (the
    buffer a loop allocates again each pass)."""
    source = copy.detail["source"].storages
    outlives = None
    found = []
    for write in writes:
        if not write.storages & source:
            continue
        if copy.detail["copy"] in write.in_flight:
            if write.function is not copy.function or model.events.after_unless(
                    copy, write, allocated_anew(model, write, source)):
                found.append(write)
        elif ENTRY in write.in_flight and getattr(write.function.node, "name", "") != "__init__":
            outlives = model.left_in_flight(copy) if outlives is None else outlives
            if outlives:
                found.append(write)
    return found


RULES = (HostReadBeforeSync(), PinnedSourceWrittenBeforeSync())
