"""The monitor: torch's own hooks, watching the program for the catalog's hazards as they happen.

- A ``TorchFunctionMode`` sees every torch call the program makes (the user's own and those of
  other libraries): which tensors it reads, which it writes (the op schema's ``Tensor(a!)``
  annotations, ``out=``, ``__setitem__``) and which result shares storage with an argument.
- ``saved_tensors_hooks`` keep, for every tensor saved for backward, its version and storage;
  when backward unpacks it, a changed version is TEN307 (and raises as torch would), a write
  seen through ``.data`` (no version bump) is TEN301.
- Thin wrappers where torch has no hook: ``torch.from_numpy``, ``copy.copy``, the CUDA
  synchronization calls, and ``torch.autograd.backward``/``grad`` (backward may run in a device
  thread with no user frame: its reports are placed at that call).

An alias counts (TEN2xx) only where the operation that made it is meant as a copy: ``detach()``
and ``.data`` (TEN203), ``.numpy()``/``np.asarray`` (TEN201), ``from_numpy``/``as_tensor``
(TEN202), ``reshape``/``flatten``/``ravel`` that returned a view and an integer-indexed row
(TEN204), a move (``cpu``, ``to``, ``contiguous``, dtype casts) that returned its very receiver
and whose result the statement keeps beside it (TEN205), ``copy.copy`` (TEN207) and
``state_dict()`` values (TEN208); other views are meant as views. The hazard is then a write to
the shared memory through one side followed by a read of the other side; memory written through
NumPy (which torch never sees) is found by comparing the tensor with a snapshot when torch next
reads it, or when the monitor stops while both sides are alive.
"""

import copy
import functools
import os
import sys
import traceback
import weakref
from typing import Callable, Dict, List, Optional

import numpy as np
import torch
from torch.overrides import TorchFunctionMode

from flake8_tensorcopy.runtime import frames, statements
from flake8_tensorcopy.runtime.frames import Location
from flake8_tensorcopy.runtime.reports import Report, StaticFindings

MOVES = frozenset({"cpu", "to", "cuda", "contiguous", "float", "double", "half", "bfloat16", "int", "long",
                   "type", "type_as"})
COPY_MEANT_VIEWS = frozenset({"reshape", "reshape_as", "flatten", "ravel"})
NUMPY_VIEWS = frozenset({"numpy", "__array__"})
FROM_NUMPY = frozenset({"as_tensor", "asarray", "from_numpy"})
DETACHING = frozenset({"detach", "data"})
MULTI_OUTPUT_VIEWS = frozenset({"unbind", "chunk", "split", "split_with_sizes", "tensor_split", "unsafe_chunk"})
BLOCKING_READS = frozenset({"item", "tolist", "__bool__", "__float__", "__int__", "__index__"})
# calls whose result depends on a tensor's shape, type or identity, never on its values
METADATA = frozenset({
    "__get__", "__set__", "size", "dim", "stride", "storage_offset", "data_ptr", "untyped_storage", "numel",
    "element_size", "is_contiguous", "is_pinned", "get_device", "nelement", "is_floating_point", "is_complex",
    "__len__", "requires_grad_", "retain_grad", "register_hook", "__hash__", "_is_view", "is_set_to",
    "__reduce_ex__", "__setstate__", "backward", "pin_memory", "share_memory_", "dim_order", "ndimension",
})
STATE_DICT_FRAMES = ("state_dict", "_save_to_state_dict")
# the devices whose non_blocking copies the monitor follows: it wraps their synchronize calls
ASYNCHRONOUS_DEVICES = frozenset({"cuda"})
# calls that can make an alias whatever their schema says (or that have none)
ALIAS_MAKING = MOVES | COPY_MEANT_VIEWS | NUMPY_VIEWS | FROM_NUMPY | DETACHING | MULTI_OUTPUT_VIEWS | {
    "__getitem__", "__get__:data"}


def _name(func) -> str:
    name = getattr(func, "__name__", "")
    if name in ("__get__", "__set__"):
        owner = getattr(func, "__self__", None)
        return f"{name}:{getattr(owner, '__name__', '')}"
    return name


@functools.lru_cache(maxsize=None)
def _written_arguments(name: str):
    """(positions, keywords) of the arguments the op writes, from its schemas' ``(a!)``."""
    if name == "__setitem__":
        return frozenset({0}), frozenset()
    if name.startswith("__i") and name.endswith("__"):
        name = name[3:-2] + "_"
    elif name.startswith("__"):
        return frozenset(), frozenset()
    positions, keywords = set(), set()
    try:
        schemas = torch._C._jit_get_schemas_for_operator(f"aten::{name}")
    except RuntimeError:
        schemas = []
    for schema in schemas:
        for index, argument in enumerate(schema.arguments):
            if argument.alias_info is not None and argument.alias_info.is_write:
                keywords.add(argument.name)
                if not argument.kwarg_only:
                    positions.add(index)
    return frozenset(positions), frozenset(keywords)


@functools.lru_cache(maxsize=None)
def _may_alias(name: str) -> bool:
    """Whether the op can return memory of an argument without writing it: a result annotated
    ``Tensor(a)`` in one of its schemas, or no schema to tell (a Python-level function)."""
    if name.startswith("__i") and name.endswith("__"):
        return False  # an augmented assignment returns its receiver, written
    try:
        schemas = torch._C._jit_get_schemas_for_operator(f"aten::{name}")
    except RuntimeError:
        schemas = []
    return not schemas or any(
        result.alias_info is not None and not result.alias_info.is_write
        for schema in schemas for result in schema.returns)


def _tensors(value, found: List[torch.Tensor], depth: int = 0) -> List[torch.Tensor]:
    if isinstance(value, torch.Tensor):
        found.append(value)
    elif depth < 3 and isinstance(value, (list, tuple)):
        for item in value:
            _tensors(item, found, depth + 1)
    elif depth < 3 and isinstance(value, dict):
        for item in value.values():
            _tensors(item, found, depth + 1)
    return found


def _arguments_tensors(args, kwargs) -> List[torch.Tensor]:
    """The tensors among a call's arguments (and in its lists, tuples and dicts)."""
    found: List[torch.Tensor] = []
    for values in (args, kwargs.values() if kwargs else ()):
        for value in values:
            if isinstance(value, torch.Tensor):
                found.append(value)
            elif isinstance(value, (list, tuple, dict)):
                _tensors(value, found, 1)
    return found


def extent(value):
    """(device, start, end): the bytes a tensor or an ndarray spans, or None."""
    try:
        if isinstance(value, np.ndarray):
            if value.size == 0:
                return None
            start = value.__array_interface__["data"][0]
            low = start + sum((n - 1) * s for n, s in zip(value.shape, value.strides) if s < 0)
            high = start + sum((n - 1) * s for n, s in zip(value.shape, value.strides) if s > 0)
            return ("cpu", low, high + value.itemsize)
        if value.is_cpu:  # a sparse CPU tensor has no data_ptr: it raises below
            device = "cpu"
        elif value.is_meta or value.layout != torch.strided:
            return None
        else:
            device = value.device.type
        start = value.data_ptr()
        count = value.numel()
        if count == 0:
            return None
        if value.is_contiguous():
            return (device, start, start + count * value.element_size())
        span = sum((n - 1) * s for n, s in zip(value.shape, value.stride()))
        return (device, start, start + (span + 1) * value.element_size())
    except (RuntimeError, TypeError, ValueError, AttributeError):
        return None


def overlaps(a, b) -> bool:
    return a is not None and b is not None and a[0] == b[0] and a[1] < b[2] and b[1] < a[2]


def elements_overlap(a: torch.Tensor, b: torch.Tensor) -> bool:
    """Whether two strided views of one storage share an element (exact: their offsets)."""
    def offsets(t):
        index = torch.zeros((), dtype=torch.int64)
        for size, stride in zip(t.shape, t.stride()):
            index = index.unsqueeze(-1) + torch.arange(size, dtype=torch.int64) * stride
        base = (t.data_ptr() - t.untyped_storage().data_ptr()) // t.element_size()
        return (index + base).flatten()

    if a.untyped_storage().data_ptr() != b.untyped_storage().data_ptr() or a.element_size() != b.element_size():
        return overlaps(extent(a), extent(b))
    return bool(torch.isin(offsets(a), offsets(b)).any())


def same_bytes(a: torch.Tensor, b: torch.Tensor) -> bool:
    """Whether two tensors hold the same bytes (``torch.equal`` tells a NaN from itself)."""
    return a.shape == b.shape and torch.equal(a.detach().reshape(-1).contiguous().view(torch.uint8),
                                              b.detach().reshape(-1).contiguous().view(torch.uint8))


class ObjectMap(dict):
    """A map keyed by object identity holding its keys weakly (a WeakKeyDictionary would compare
    tensors with ``==``, which is elementwise); a dict underneath, so that testing whether it is
    empty costs no Python call on the monitor's hot path."""

    def __setitem__(self, key, value) -> None:
        identity = id(key)
        dict.__setitem__(self, identity, (weakref.ref(key, lambda _, items=self: items.pop(identity, None)), value))

    def get(self, key, default=None):
        entry = dict.get(self, id(key))
        return entry[1] if entry is not None and entry[0]() is key else default

    def __contains__(self, key) -> bool:
        entry = dict.get(self, id(key))
        return entry is not None and entry[0]() is key

    def __delitem__(self, key) -> None:
        self.pop(id(key), None)

    def values(self):
        return [value for ref, value in self.entries() if ref() is not None]

    def entries(self):
        return dict.values(self)


def _held_elsewhere(ref, held_by_tensor: bool) -> bool:
    """Whether an array (or the array it views) is referenced by more than this check and, for
    the source of from_numpy, the tensor built over it."""
    array = ref()
    if array is None:
        return False
    own = 3 if held_by_tensor else 2  # getrefcount's argument, the local name, the tensor
    if sys.getrefcount(array) > own:
        return True
    base = array.base
    while isinstance(base, np.ndarray):
        if sys.getrefcount(base) > 3:  # the argument, the local name, the view's .base
            return True
        base = base.base
    return False


class Alias:
    """Memory two sides share where a copy was meant: who made it, which objects belong to which
    side (views made later of a side join it), and the last write through one side."""

    def __init__(self, code: str, made: Location, source, alias, same_object: bool = False):
        self.code = code
        self.made = made
        self.same_object = same_object
        self.members = ObjectMap()
        self.arrays: Dict[str, "weakref.ref"] = {}
        for side, value in (("source", source), ("alias", alias)):
            if isinstance(value, np.ndarray):
                self.arrays[side] = weakref.ref(value)
            elif value is not None:
                self.members[value] = "both" if same_object else side
        tensor = alias if isinstance(alias, torch.Tensor) else source
        self.extent = extent(alias)
        self.snapshot = tensor.detach().clone() if self.arrays and tensor.device.type == "cpu" else None
        self.watched = weakref.ref(tensor)
        self.written: Optional[tuple] = None
        self.array_wrote: Optional[bool] = None
        self.reported = False

    def alive(self) -> bool:
        """Both sides still held (before a write), or the side not written (after one)."""
        if self.watched() is None and not self.written:
            return False
        if self.arrays:
            if all(ref() is not None for ref in self.arrays.values()):
                return True
            # the array is gone: what it wrote stays in the tensor, read later through torch
            if self.array_wrote is None:
                self.array_wrote = self.changed_outside_torch()
            return self.array_wrote
        if self.same_object:
            return self.watched() is not None
        held = set()
        for ref, side in list(self.members.entries()):
            member = ref()
            # held by Python: more than the argument and ``member``, and torch's own reference to
            # the base of a view (a reshaped temporary lives on only inside its view)
            if member is not None and (side == "alias" or sys.getrefcount(member) > 2 + (self.code == "TEN204")):
                held.add(side)
        if self.written is not None:
            return bool(held - {self.written[0]})
        return held == {"source", "alias"}

    def side_of(self, tensor) -> str:
        """The side an object is on; any other tensor over the memory is the tensor's side when
        the other is an array, else the source's (a view made of it elsewhere)."""
        side = self.members.get(tensor)
        if side is not None:
            return side
        return ("alias" if "source" in self.arrays else "source") if self.arrays else "source"

    def numpy_side(self) -> Optional[str]:
        return next(iter(self.arrays), None)

    def changed_outside_torch(self) -> bool:
        tensor = self.watched()
        if self.snapshot is None or tensor is None:
            return False
        return not same_bytes(tensor, self.snapshot)


class _PinnedCopy:
    """A non_blocking copy from pinned host memory to a device, not yet synchronized: where it was
    made and the values it was meant to send. The memory is reached through the tensor that owns
    it (a sliced source is often a temporary); once that is gone no one can write it."""

    __slots__ = ("copied", "extent", "owner", "geometry", "sent")

    def __init__(self, source: torch.Tensor, copied: Location):
        self.copied = copied
        self.extent = extent(source)
        base = source._base
        owner = base if base is not None and base.dtype == source.dtype else source
        self.owner = weakref.ref(owner)
        self.geometry = (source.shape, source.stride(), source.storage_offset())
        self.sent = source.detach().clone()

    def alive(self) -> bool:
        return self.owner() is not None

    def rewritten(self) -> bool:
        """Whether the memory no longer holds the values sent (written where torch does not look,
        e.g. through a NumPy view)."""
        owner = self.owner()
        return owner is not None and not same_bytes(owner.detach().as_strided(*self.geometry), self.sent)


class _Saved:
    """A tensor saved for backward, as the pack hook kept it."""

    __slots__ = ("tensor", "version", "saved", "extent", "written", "through_data", "__weakref__")

    def __init__(self, tensor, saved: Optional[Location]):
        self.tensor = tensor.detach()
        self.version = tensor._version
        self.saved = saved
        self.extent = extent(tensor)
        self.written: Optional[Location] = None
        self.through_data = False


class Monitor:
    """Watch the program between ``start()`` and ``stop()`` (or as a context manager); the
    hazards seen are in ``reports``, each printed by ``on_report`` as it happens. ``saved=False``
    is the cheaper mode: no hook on tensors saved for backward, so no TEN301/TEN307."""

    def __init__(self, on_report: Optional[Callable[[Report], None]] = None, static: bool = True,
                 saved: bool = True):
        self.reports: List[Report] = []
        self.failures: Dict[str, int] = {}  # the monitor's own errors, caught: what and where, how often
        self.on_report = on_report
        self.static = StaticFindings() if static else None
        self.busy = False
        self.aliases: List[Alias] = []
        self.saved: List["weakref.ref"] = []
        self.from_data = ObjectMap()
        self.multi_output = ObjectMap()
        self.pending_host = ObjectMap()  # TEN401
        self.pending_pinned: List[_PinnedCopy] = []  # TEN402
        self.sync_epoch = 0
        self._seen = set()
        self._mode = _Mode(self)
        self._hooks = torch.autograd.graph.saved_tensors_hooks(self._pack, self._unpack) if saved else None
        self._patches: List[tuple] = []

    # ------------------------------------------------------------------ lifecycle
    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc):
        self.stop()
        return False

    def start(self) -> None:
        self._install_wrappers()
        if self._hooks is not None:
            self._hooks.__enter__()
        self._mode.__enter__()

    def stop(self) -> None:
        self._mode.__exit__(None, None, None)
        if self._hooks is not None:
            self._hooks.__exit__(None, None, None)
        for owner, name, original in reversed(self._patches):
            setattr(owner, name, original)
        self._patches.clear()
        try:
            self._check_numpy_writes_at_exit()
        except Exception as error:
            self.failed(error)

    def failed(self, error: Exception) -> None:
        """Record an error of the monitor's own and go on: a monitor bug must not change what the
        program does (the summary lists them)."""
        where = traceback.extract_tb(error.__traceback__)[-1:] if error.__traceback__ else []
        place = f" at {os.path.basename(where[0].filename)}:{where[0].lineno}" if where else ""
        key = f"{type(error).__name__}: {error}{place}"
        self.failures[key] = self.failures.get(key, 0) + 1

    # ------------------------------------------------------------------ reporting
    def report(self, code: str, message: str, where: Optional[Location], **related: Optional[Location]) -> None:
        report = Report(code, message, where, {label: loc for label, loc in related.items() if loc is not None})
        if report.key in self._seen:
            return
        self._seen.add(report.key)
        self.reports.append(report)
        if self.static is not None:
            self.static.confirm(report)
        if self.on_report is not None:
            self.on_report(report)

    # ------------------------------------------------------------------ wrappers
    def _patch(self, owner, name: str, make) -> None:
        original = getattr(owner, name)
        self._patches.append((owner, name, original))
        setattr(owner, name, make(original))

    def _install_wrappers(self) -> None:
        monitor = self

        def from_numpy(original):
            @functools.wraps(original)
            def wrapper(array, *args, **kwargs):
                result = original(array, *args, **kwargs)
                try:
                    made = frames.user_location(2)
                    if not monitor.busy and made is not None and _kept(made, "from_numpy"):
                        monitor._numpy_alias("TEN202", made, array, result, array_is_source=True)
                except Exception as error:
                    monitor.failed(error)
                return result
            return wrapper

        def shallow_copy(original):
            @functools.wraps(original)
            def wrapper(value):
                if not isinstance(value, torch.Tensor) or monitor.busy:
                    return original(value)
                monitor.busy = True
                try:
                    result = original(value)
                finally:
                    monitor.busy = False
                try:
                    made = frames.user_location(2)
                    if (isinstance(result, torch.Tensor) and result is not value and made is not None
                            and overlaps(extent(result), extent(value)) and _kept(made, "copy")):
                        monitor._alias("TEN207", made, value, result)
                except Exception as error:
                    monitor.failed(error)
                return result
            return wrapper

        def synchronizing(original):
            @functools.wraps(original)
            def wrapper(*args, **kwargs):
                result = original(*args, **kwargs)
                try:
                    monitor._synchronized(lambda: frames.user_location(3))
                except Exception as error:
                    monitor.failed(error)
                return result
            return wrapper

        def starting_backward(original):
            """Backward may run in autograd's device threads: what it shows is placed here."""
            @functools.wraps(original)
            def wrapper(*args, **kwargs):
                try:
                    started = frames.user_location(2)
                except Exception as error:
                    monitor.failed(error)
                    started = None
                with frames.starting_work(started):
                    return original(*args, **kwargs)
            return wrapper

        self._patch(torch, "from_numpy", from_numpy)
        self._patch(copy, "copy", shallow_copy)
        self._patch(torch.autograd, "backward", starting_backward)
        self._patch(torch.autograd, "grad", starting_backward)
        if torch.cuda.is_available():
            self._patch(torch.cuda, "synchronize", synchronizing)
            self._patch(torch.cuda.Stream, "synchronize", synchronizing)
            self._patch(torch.cuda.Event, "synchronize", synchronizing)

    def _synchronized(self, place: Callable[[], Optional[Location]]) -> None:
        """A synchronization: copies still pending are done; a pinned source rewritten meanwhile
        outside torch's sight is TEN402, placed at the synchronization that ends the window."""
        self.sync_epoch += 1
        pending, self.pending_pinned = self.pending_pinned, []
        for copy_ in pending:
            if copy_.rewritten():
                self._pinned_rewritten(copy_, place(), "before this synchronization")

    def _pinned_rewritten(self, copy_: _PinnedCopy, where: Optional[Location], seen: str) -> None:
        self.report("TEN402", "a pinned buffer was written outside torch (e.g. through a NumPy view) while its "
                    f"non_blocking copy to the device may still run (seen {seen})", where, copied=copy_.copied)

    # ------------------------------------------------------------------ saved for backward
    def _pack(self, tensor):
        try:
            saved = _Saved(tensor, frames.user_location(2))
            self.saved.append(weakref.ref(saved))
            return saved
        except Exception as error:
            self.failed(error)
            return tensor  # unpacked as it is, unchecked

    def _unpack(self, saved):
        """The saved tensor back for backward, from whichever thread runs it (CUDA's backward runs in
        a device thread: its reports are placed where the user called backward). The hooks replace
        torch's version check, so a changed version raises torch's error here, seen or not."""
        if not isinstance(saved, _Saved):
            return saved
        tensor = saved.tensor
        if tensor._version != saved.version:
            try:
                backward = frames.user_location(2)
                self.report("TEN307", "a tensor saved for backward was written in place before backward used it",
                            saved.written or backward, saved=saved.saved, backward=backward)
            except Exception as error:
                self.failed(error)
            raise RuntimeError(
                "one of the variables needed for gradient computation has been modified by an inplace "
                f"operation: [{tensor.type()} {list(tensor.shape)}] is at version {tensor._version}; expected "
                f"version {saved.version} instead (seen by the tensorcopy monitor: TEN307, written at "
                f"{saved.written or 'a place it did not see'})")
        if saved.through_data:
            try:
                self.report("TEN301", "a tensor saved for backward was written through .data (no version bump): "
                            "backward computes wrong gradients", saved.written, saved=saved.saved,
                            backward=frames.user_location(2))
            except Exception as error:
                self.failed(error)
        return tensor

    def _saved_written(self, tensor, written_extent, place: Callable[[], Optional[Location]]) -> None:
        live = []
        for ref in self.saved:
            saved = ref()
            if saved is None:
                continue
            live.append(ref)
            if overlaps(saved.extent, written_extent):
                saved.written = place()
                saved.through_data = saved.through_data or tensor in self.from_data
        self.saved = live

    # ------------------------------------------------------------------ aliases
    def _alias(self, code: str, made: Optional[Location], source, alias, same_object: bool = False) -> None:
        if made is None:
            return
        self.aliases.append(Alias(code, made, source, alias, same_object))

    def _numpy_alias(self, code, made, array, tensor, array_is_source: bool) -> None:
        if made is None or not isinstance(tensor, torch.Tensor) or not overlaps(extent(array), extent(tensor)):
            return
        if array_is_source:
            self.aliases.append(Alias(code, made, array, tensor))
        else:
            self.aliases.append(Alias(code, made, tensor, array))

    def _live_aliases(self) -> List[Alias]:
        self.aliases = [alias for alias in self.aliases if not alias.reported and alias.alive()]
        return self.aliases

    def _read(self, tensor, where: Location) -> None:
        span = None
        for alias in self._live_aliases():
            if span is None:
                span = extent(tensor)
            if not overlaps(alias.extent, span):
                continue
            side = alias.side_of(tensor)
            numpy_side = alias.numpy_side()
            if numpy_side is not None and numpy_side != side and alias.changed_outside_torch():
                alias.reported = True
                self.report(alias.code, _ALIAS_MESSAGES[alias.code] + " (written through the array)", where,
                            made=alias.made)
                continue
            if alias.written is None:
                continue
            written_side, written_at = alias.written
            if alias.same_object or written_side != side:
                alias.reported = True
                self.report(alias.code, _ALIAS_MESSAGES[alias.code], where, made=alias.made, written=written_at)

    def _wrote(self, tensor, written_extent, where: Location) -> None:
        for alias in self._live_aliases():
            if not overlaps(alias.extent, written_extent):
                continue
            side = alias.side_of(tensor)
            alias.written = (side, where)
            numpy_side = alias.numpy_side()
            if numpy_side is not None:
                # NumPy reads are invisible: an array still held elsewhere is the other side, read later
                if numpy_side != side and _held_elsewhere(alias.arrays[numpy_side], numpy_side == "source"):
                    alias.reported = True
                    self.report(alias.code, _ALIAS_MESSAGES[alias.code] + " (the array is still held)", where,
                                made=alias.made)
                elif alias.snapshot is not None:
                    alias.snapshot = alias.watched().detach().clone()

    def _join(self, result, argument) -> None:
        """A view made of one side belongs to that side."""
        for alias in self.aliases:
            side = alias.members.get(argument)
            if side is not None:
                alias.members[result] = side

    def _check_numpy_writes_at_exit(self) -> None:
        for alias in self._live_aliases():
            if alias.arrays and alias.changed_outside_torch():
                alias.reported = True
                self.report(alias.code, _ALIAS_MESSAGES[alias.code] + " (written through the array, the tensor is "
                            "still held)", alias.made)


_ALIAS_MESSAGES = {
    "TEN201": "the array from .numpy() and its tensor share memory: one side was written, the other read",
    "TEN202": "the tensor from from_numpy/as_tensor and its array share memory: one side was written, the other read",
    "TEN203": "detach()/.data shares storage: one side was written, then the other was read",
    "TEN204": "a reshape or row kept as a value is a view: its base was written, then the view read (or back)",
    "TEN205": "the move returned its very receiver: the tensor was written, then the 'copy' read",
    "TEN206": "one tensor under two names: written through one, then read through the other",
    "TEN207": "copy.copy shares the tensor's storage: one side was written, then the other read",
    "TEN208": "the state_dict() values are the live parameters: they were written, then the snapshot read",
}


class _Plan:
    """What the monitor needs to know of one torch function, decided once per function object:
    the arguments it writes, whether its result can share memory with an argument, and whether a
    call to it can be let through unwatched while no alias is live."""

    __slots__ = ("name", "positions", "keywords", "alias_making", "may_alias", "hazard", "quiet")

    def __init__(self, func):
        self.name = name = _name(func)
        positions, keywords = _written_arguments(name)
        self.positions, self.keywords = positions, keywords | {"out"}
        self.alias_making = name in ALIAS_MAKING
        self.may_alias = self.alias_making or _may_alias(name)
        self.hazard = DIRECT_HAZARDS.get(name)
        # a call that writes no positional argument, reads nothing back to the host and needs no
        # place (a written keyword, ``out=``, is looked for in each call's keywords)
        self.quiet = not positions and name not in BLOCKING_READS and name not in _NEEDS_PLACE

    def written(self, args, kwargs) -> List[torch.Tensor]:
        written = [args[i] for i in self.positions if i < len(args) and isinstance(args[i], torch.Tensor)]
        if kwargs:
            written += [kwargs[key] for key in self.keywords if isinstance(kwargs.get(key), torch.Tensor)]
        if self.positions and self.name.startswith("_foreach") and args and isinstance(args[0], (list, tuple)):
            written += [item for item in args[0] if isinstance(item, torch.Tensor)]
        return written


_PLANS: Dict[object, _Plan] = {}
_NO_KEYWORDS: dict = {}


def _plan(func) -> _Plan:
    plan = _PLANS.get(func)
    if plan is None:
        plan = _Plan(func)
        try:
            _PLANS[func] = plan
        except TypeError:  # an unhashable callable: planned on each call
            pass
    return plan


class _Place:
    """Where a call is in the user's code, looked up (a walk up the stack past library frames)
    only when a report or a record needs it, while the call still runs."""

    __slots__ = ("caller", "direct", "location")

    def __init__(self, caller):
        self.caller = caller
        self.direct = caller is not None and not frames.is_library(caller.f_code.co_filename)
        self.location: Optional[Location] = None

    def __call__(self) -> Optional[Location]:
        if self.location is None and self.caller is not None:
            frame = self.caller
            while frame is not None and frames.is_library(frame.f_code.co_filename):
                frame = frame.f_back
            self.location = None if frame is None else Location(frame.f_code.co_filename, frame.f_lineno)
            self.caller = None
        # no user frame in this thread: where the user started the work it runs (a backward)
        return self.location or frames.started_at()


class _Mode(TorchFunctionMode):
    def __init__(self, monitor: Monitor):
        super().__init__()
        self.monitor = monitor

    def __torch_function__(self, func, types, args=(), kwargs=None):
        if kwargs is None:
            kwargs = _NO_KEYWORDS
        monitor = self.monitor
        if monitor.busy:
            return func(*args, **kwargs)
        # the monitor's own failures are recorded, never raised: the call runs once, as it would unwatched
        try:
            plan = _PLANS.get(func) or _plan(func)
            # fast path: nothing to check before the call, and after it only an alias it made
            fast = (plan.quiet and not monitor.aliases and not monitor.pending_host
                    and plan.keywords.isdisjoint(kwargs) and (plan.hazard is None or not plan.hazard(args)))
            if not fast:
                place = _Place(_caller())
                tensors = _arguments_tensors(args, kwargs)
                written = plan.written(args, kwargs) if tensors else ()
                before(monitor, plan, args, kwargs, tensors, written, place)
        except Exception as error:
            monitor.failed(error)
            return func(*args, **kwargs)
        result = func(*args, **kwargs)
        try:
            if not fast:
                after(monitor, plan, args, kwargs, tensors, written, result, place)
            # only an alias-making call's result, or a view, can be an alias meant as a copy
            elif plan.may_alias and (plan.alias_making or isinstance(result, torch.Tensor) and result._is_view()):
                after(monitor, plan, args, kwargs, _arguments_tensors(args, kwargs), (), result, _Place(_caller()))
        except Exception as error:
            monitor.failed(error)
        return result


def _caller():
    """The frame that called the torch function (past torch's own Python entry points); None
    where nothing in Python did (a hook that one of autograd's device threads runs)."""
    try:
        frame = sys._getframe(2)
    except ValueError:
        return None
    while frame is not None and frame.f_code.co_filename.endswith(_ENTRY_FILES):
        frame = frame.f_back
    return frame


_ENTRY_FILES = ("torch/overrides.py", "torch/_tensor.py", "torch/utils/_device.py", "/copy.py")

# the value condition of each hazard a direct call may show before it runs (reported only when
# the user's code made the call); a call whose condition is false may take the fast path
DIRECT_HAZARDS = {
    "tensor": lambda args: bool(args),
    "new_tensor": lambda args: len(args) > 1 and isinstance(args[1], torch.Tensor),
    "__get__:grad": lambda args: bool(args) and not args[0].is_leaf and not args[0].retains_grad,
    "__deepcopy__": lambda args: bool(args) and args[0].requires_grad and not args[0].is_leaf,
    **dict.fromkeys(NUMPY_VIEWS, lambda args: bool(args) and (args[0].requires_grad or not args[0].is_cpu)),
}


def before(monitor: Monitor, plan: _Plan, args, kwargs, tensors, written, place: _Place) -> None:
    """Checks on a call about to run: those whose hazard is that the call raises or warns."""
    name = plan.name
    if plan.hazard is not None and place.direct and plan.hazard(args):
        where = place()
        if name == "tensor":
            _tensor_construct(monitor, args[0], where)
        elif name == "new_tensor":
            monitor.report("TEN102", "x.new_tensor(t) copy-constructs a tensor", where)
        elif name == "__get__:grad":
            monitor.report("TEN303", ".grad read on a non-leaf tensor (it stays None)", where)
        elif name == "__deepcopy__":
            monitor.report("TEN305", "copy.deepcopy of a non-leaf tensor that requires grad", where)
        else:
            monitor.report("TEN302", f".{name.strip('_')}() on a tensor that "
                           f"{'requires grad' if args[0].requires_grad else 'is not on the CPU'}", where)
    if not tensors:
        return
    if monitor.pending_pinned:
        _check_pinned_sources(monitor, tensors, place)
    for target in written:
        _check_write(monitor, name, target, args, kwargs, place)
    if monitor.pending_host:
        for tensor in tensors:
            _check_host_read(monitor, tensor, place)
    if name in BLOCKING_READS or (name in ("cpu", "to") and not kwargs.get("non_blocking")):
        if any(t.device.type in ASYNCHRONOUS_DEVICES for t in tensors):
            monitor._synchronized(place)


def _tensor_construct(monitor: Monitor, data, where) -> None:
    if isinstance(data, torch.Tensor):
        monitor.report("TEN101", "torch.tensor(t) copy-constructs a tensor", where)
        return
    items = _tensors(data, []) if isinstance(data, (list, tuple)) else []
    if items and torch.is_grad_enabled() and any(item.requires_grad for item in items):
        monitor.report("TEN106", "torch.tensor([...]) over tensors that require grad cuts the graph", where)
    elif any(item.device.type == "cuda" for item in items):
        monitor.report("TEN106", "torch.tensor([...]) over CUDA tensors reads each back to the host", where)


def _check_write(monitor: Monitor, name: str, target, args, kwargs, place: _Place) -> None:
    """A write about to happen: an overlapping source (TEN210), a target repeating one memory
    location or a multi-output view in a graph (TEN209), a pinned buffer still being copied (TEN402)."""
    region = target
    if name == "__setitem__" and len(args) > 2:
        monitor.busy = True
        try:
            region = target[args[1]]
        except Exception:  # the write itself will raise the same error
            region = None
        finally:
            monitor.busy = False
    if region is None:
        return
    if torch._debug_has_internal_overlap(region) == 1:
        monitor.report("TEN209", "in-place write to a tensor whose elements share memory (expanded)", place())
    elif monitor.multi_output and target in monitor.multi_output and torch.is_grad_enabled():
        monitor.report("TEN209", "in-place write to an output of chunk/split/unbind of a tensor in the graph",
                       place())
    target_span = extent(region)
    for source in _arguments_tensors(args[1:], kwargs):
        if source is target or source is region:
            continue
        if overlaps(extent(source), target_span) and not _same_view(source, region) and elements_overlap(source, region):
            monitor.report("TEN210", "a write whose source overlaps the memory it writes", place())
    for copy_ in list(monitor.pending_pinned):
        if overlaps(copy_.extent, target_span):
            monitor.pending_pinned.remove(copy_)  # one report per copy
            monitor.report("TEN402", "a pinned buffer was written while its non_blocking copy to the device may "
                           "still run", place(), copied=copy_.copied)


def _check_pinned_sources(monitor: Monitor, tensors, place: _Place) -> None:
    """A call using memory of a pinned copy's source: written since the copy where torch did not
    look (through NumPy), it is TEN402, seen here."""
    for tensor in tensors:
        span = extent(tensor)
        for copy_ in list(monitor.pending_pinned):
            if overlaps(copy_.extent, span) and copy_.rewritten():
                monitor.pending_pinned.remove(copy_)
                monitor._pinned_rewritten(copy_, place(), "where torch next used the memory")


def _same_view(a, b) -> bool:
    return a.data_ptr() == b.data_ptr() and a.shape == b.shape and a.stride() == b.stride()


def _check_host_read(monitor: Monitor, tensor, place: _Place) -> None:
    pending = monitor.pending_host.get(tensor)
    if pending is not None and pending[1] == monitor.sync_epoch:
        del monitor.pending_host[tensor]
        monitor.report("TEN401", "the host result of a non_blocking copy was read before a synchronization",
                       place(), copied=pending[0])


def after(monitor: Monitor, plan: _Plan, args, kwargs, tensors, written, result, place: _Place) -> None:
    """What a call that ran did: reads, writes and the aliases it made."""
    if not tensors and not isinstance(result, torch.Tensor):
        return
    name, direct = plan.name, place.direct
    if not (direct or monitor.aliases or name in _NEEDS_PLACE):
        # a library's own call while no alias is live: only its writes to tensors saved for backward
        if monitor.saved:
            for target in written:
                monitor._saved_written(target, extent(target), place)
        return
    where = place()
    if where is None:
        return
    made = _made_alias(monitor, name, args, kwargs, result, where, direct)
    if monitor.aliases and name not in METADATA and not name.startswith(("__get__", "__set__")) and not made:
        written_ids = {id(t) for t in written}
        for tensor in tensors:
            if id(tensor) not in written_ids:
                monitor._read(tensor, where)
    for target in written:
        span = extent(target)
        if direct:
            _two_names(monitor, target, where)
        if monitor.aliases:
            monitor._wrote(target, span, where)
        if monitor.saved:
            monitor._saved_written(target, span, place)
    if name in ("to", "cuda", "cpu", "copy_") and _non_blocking(name, args, kwargs):
        _asynchronous_copy(monitor, name, args, result, where)


def _two_names(monitor: Monitor, target, where: Location) -> None:
    """TEN206: the function writing a tensor in place holds it under two local names (``y = x``):
    the write through one changes what the other reads."""
    frame = frames.user_frame(4)
    if frame is None:
        return
    names = [name for name, value in list(frame.f_locals.items()) if value is target]
    moved = any(alias.code == "TEN205" and alias.watched() is target for alias in monitor.aliases)
    if len(names) < 2 or moved:  # two names made by a move that returned its receiver: TEN205
        return
    code = frame.f_code
    line = statements.bound_together(code.co_filename, code.co_firstlineno, frame.f_lineno, names)
    alias = Alias("TEN206", Location(code.co_filename, line) if line else where, target, target, same_object=True)
    alias.written = ("both", where)
    monitor.aliases.append(alias)


_NEEDS_PLACE = frozenset({"detach", "__get__:data", "to", "cuda", "cpu", "copy_"})


def _non_blocking(name, args, kwargs) -> bool:
    if kwargs.get("non_blocking"):
        return True
    return name == "copy_" and len(args) > 2 and args[2] is True


def _asynchronous_copy(monitor: Monitor, name, args, result, where) -> None:
    source = args[1] if name == "copy_" else args[0]
    target = args[0] if name == "copy_" else result
    if not isinstance(source, torch.Tensor) or not isinstance(target, torch.Tensor) or target is source:
        return
    if source.device.type in ASYNCHRONOUS_DEVICES and target.device.type == "cpu":
        monitor.pending_host[target] = (where, monitor.sync_epoch)
    elif source.device.type == "cpu" and target.device.type in ASYNCHRONOUS_DEVICES and source.is_pinned():
        monitor.pending_pinned = [copy_ for copy_ in monitor.pending_pinned if copy_.alive()]
        monitor.pending_pinned.append(_PinnedCopy(source, where))


def _made_alias(monitor: Monitor, name, args, kwargs, result, where, direct: bool) -> bool:
    """Record the alias a call made; True when the result shares memory with an argument."""
    if name == "__get__:data" and isinstance(result, torch.Tensor):
        monitor.from_data[result] = True
    source = args[0] if args and isinstance(args[0], torch.Tensor) else None
    if name in NUMPY_VIEWS and isinstance(result, np.ndarray) and source is not None:
        # pinned host memory is a staging area for device copies: an array over it is how it is
        # filled, meant as a view (its hazard is a write while a copy from it runs: TEN402)
        if (direct and overlaps(extent(result), extent(source)) and (name != "numpy" or _kept(where, name, True))
                and not source.is_pinned()):
            monitor._numpy_alias("TEN201", where, result, source, array_is_source=False)
            return True
        return False
    if name in FROM_NUMPY and args and isinstance(args[0], np.ndarray):
        if direct and _kept(where, name):
            monitor._numpy_alias("TEN202", where, args[0], result, array_is_source=True)
        return False
    if source is None:
        return False
    if isinstance(result, (list, tuple)) and name in MULTI_OUTPUT_VIEWS and source.requires_grad:
        for item in result:
            if isinstance(item, torch.Tensor):
                monitor.multi_output[item] = True
        return True
    if not isinstance(result, torch.Tensor):
        return False
    if result is source:
        if name in MOVES and direct and not (name == "to" and kwargs.get("copy")):
            if statements.result_kept(where.path, where.line, name):
                monitor._alias("TEN205", where, source, source, same_object=True)
        return name in MOVES
    if name not in DETACHING and name != "__get__:data" and not result._is_view():
        return False
    if not overlaps(extent(result), extent(source)):
        return False
    monitor._join(result, source)
    if name in ("__get__:data", "detach"):
        if frames.inside(STATE_DICT_FRAMES, 3):
            monitor._alias("TEN208", where, source, result)
        elif direct and _kept(where, name):
            monitor._alias("TEN203", where, source, result)
    elif direct and (name in COPY_MEANT_VIEWS or (name == "__getitem__" and _integer_index(args))) and _kept(where, name):
        monitor._alias("TEN204", where, source, result)
    elif direct and statements.returns(where.path, where.line):
        monitor._alias("TEN204", where, source, result)
    elif source in monitor.from_data:
            monitor.from_data[result] = True
    return True


def _kept(where: Location, name: str, handed_on: bool = False) -> bool:
    """An alias the statement only uses on the spot (``w.data.mul_(2)``, ``x.detach().clone()``)
    is not meant as a copy: it is kept when assigned, stored, returned or collected (or, for an
    array, handed to a function)."""
    return statements.result_kept(where.path, where.line, name.split(":")[-1], handed_on)


def _integer_index(args) -> bool:
    index = args[1] if len(args) > 1 else None
    return isinstance(index, int) and not isinstance(index, bool)
