"""The event store: what the program does to values, recorded once from the final states.

Kinds: ``bind`` (a place gets a value), ``read`` (a place is read, or a tensor's values are read
on the host: ``detail["value_read"]``), ``write`` (a storage is written in place), ``call``,
``escape`` (a value handed to code the model cannot see), ``return``, ``backward``, ``step``,
``copy-start`` (an asynchronous copy begins; its id is the call's position) and ``sync``.

Each event keeps its ast node, its place (if any), the value involved, the function, the flow
block and its order in the block, the copies in flight there and, for writes, the other places
holding the written storages. Queries answer what rules ask: reads after a write to a storage,
holders of a storage at exit, whether every path from a copy to a read syncs, writes between two
points. Reachability is over the flow graph, so a read earlier in a loop body still comes after
a write later in it.
"""

from typing import Dict, Iterable, List, Optional

from flake8_tensorcopy.model.values import containers_of


class Event:
    __slots__ = ("kind", "node", "place", "value", "function", "block", "order", "in_flight", "detail")

    def __init__(self, kind, node, place, value, function, block, order, in_flight, detail):
        self.kind = kind
        self.node = node
        self.place = place
        self.value = value
        self.function = function
        self.block = block
        self.order = order
        self.in_flight = in_flight
        self.detail = detail

    @property
    def line(self) -> int:
        return self.node.lineno

    @property
    def storages(self) -> frozenset:
        return self.value.storages if self.value is not None else frozenset()

    def __repr__(self) -> str:
        return f"Event({self.kind}, line {self.line}, {self.place!r})"


class EventStore:
    def __init__(self):
        self.events: List[Event] = []
        self._reach: Dict[tuple, frozenset] = {}
        self._by_kind: Dict[str, List[Event]] = {}
        self._by_function: Dict[int, List[Event]] = {}
        self._indexed: Optional[tuple] = None

    def add(self, event: Event) -> None:
        self.events.append(event)

    def find(self, kind: Optional[str] = None, line: Optional[int] = None, place: Optional[str] = None) -> List[Event]:
        candidates = self.events if kind is None else self._of_kind(kind)
        if line is None and place is None:
            return list(candidates)
        return [event for event in candidates
                if (line is None or event.line == line) and (place is None or event.place == place)]

    def _of_kind(self, kind: str) -> List[Event]:
        """The events of one kind, indexed once the store stops changing (rules ask many times)."""
        self._index()
        return self._by_kind.get(kind, [])

    def of_function(self, function) -> List[Event]:
        """The events of one function, in the order they were recorded."""
        self._index()
        return self._by_function.get(id(function), [])

    def _index(self) -> None:
        version = (id(self.events), len(self.events))
        if self._indexed != version:
            self._by_kind, self._by_function = {}, {}
            for event in self.events:
                self._by_kind.setdefault(event.kind, []).append(event)
                self._by_function.setdefault(id(event.function), []).append(event)
            self._indexed = version

    def _reachable(self, function, block: int) -> frozenset:
        """Blocks reachable from ``block`` by one edge or more."""
        key = (id(function), block)
        found = self._reach.get(key)
        if found is None:
            blocks = function.graph.blocks
            seen, stack = set(), list(blocks[block].succ)
            while stack:
                index = stack.pop()
                if index not in seen:
                    seen.add(index)
                    stack.extend(blocks[index].succ)
            found = self._reach[key] = frozenset(seen)
        return found

    def after(self, first: Event, second: Event) -> bool:
        """Whether some path runs ``second`` after ``first`` (same function)."""
        if first.function is not second.function:
            return False
        if first.block == second.block and second.order > first.order:
            return True
        return second.block in self._reachable(first.function, first.block)

    def after_unless(self, first: Event, second: Event, kills: List[Event]) -> bool:
        """Whether some path runs ``second`` after ``first`` without running any of ``kills``
        in between (same function)."""
        if first.function is not second.function:
            return False
        if not kills:
            return self.after(first, second)
        killed: Dict[int, List[int]] = {}
        for kill in kills:
            killed.setdefault(kill.block, []).append(kill.order)
        if first.block == second.block and second.order > first.order and not any(
                first.order < order < second.order for order in killed.get(first.block, ())):
            return True
        if any(order > first.order for order in killed.get(first.block, ())):
            return False  # every path out of the block runs a kill
        blocks = first.function.graph.blocks
        return _reaches_unless(blocks, blocks[first.block].succ, second, killed)

    def entered_unless(self, event: Event, kills: List[Event]) -> bool:
        """Whether some path from its function's entry runs ``event`` without running any of
        ``kills`` first: False where every call runs a kill before ``event``."""
        killed: Dict[int, List[int]] = {}
        for kill in kills:
            if kill.function is event.function:
                killed.setdefault(kill.block, []).append(kill.order)
        return _reaches_unless(event.function.graph.blocks, [0], event, killed)

    def innermost_loop(self, event: Event) -> frozenset:
        """The blocks of the innermost loop holding the event (empty: in no loop): of the loop
        headers around it, the one whose body (the blocks reaching its back edges from inside
        it) is smallest."""
        blocks = event.function.graph.blocks
        best = frozenset()
        for header in blocks:
            if not header.loop or not (header.index == event.block or (
                    event.block in self._reachable(event.function, header.index)
                    and header.index in self._reachable(event.function, event.block))):
                continue
            # the builder numbers a loop's blocks after its header: a lower index is outside it
            body, stack = {header.index}, [pred for pred in header.pred if pred > header.index]
            while stack:
                index = stack.pop()
                if index not in body and index > header.index:
                    body.add(index)
                    stack.extend(blocks[index].pred)
            if event.block in body and (not best or len(body) < len(best)):
                best = frozenset(body)
        return best

    def reads_after_write(self, storage) -> List[tuple]:
        """(write, read) pairs of one storage where the read may run after the write."""
        writes = [event for event in self.events if event.kind == "write" and storage in event.storages]
        reads = [event for event in self.events if event.kind == "read" and storage in event.storages]
        return [(write, read) for write in writes for read in reads if self.after(write, read)]

    def writes_between(self, first: Event, second: Event) -> List[Event]:
        return [
            event for event in self.events
            if event.kind == "write" and self.after(first, event) and self.after(event, second)
        ]

    @staticmethod
    def unsynced(read: Event) -> frozenset:
        """The copies producing the read value that may still be in flight at the read."""
        return read.value.pending & read.in_flight

    def must_sync(self, copy: Event, read: Event) -> bool:
        """Whether every path from the copy's start to the read waits for it."""
        return copy.detail["copy"] not in read.in_flight

    @staticmethod
    def holders(storage, state: dict, excluding: Iterable[str] = ()) -> List[str]:
        skip = set(excluding)
        return sorted(
            place for place, value in state.items()
            if place not in skip and type(value) is not frozenset and _holds(value, storage)
        )


def _holds(value, storage) -> bool:
    if storage in value.storages or containers_of((storage,)) & value.storages:
        return True
    return any(_holds(item, storage) for _, item in value.items or ())


def _reaches_unless(blocks, starts, event: Event, killed: Dict[int, List[int]]) -> bool:
    """Whether a path from the blocks ``starts`` reaches ``event`` through no killed position
    (``killed``: block -> orders of the kills in it)."""
    seen, stack = set(), list(starts)
    while stack:
        index = stack.pop()
        if index in seen:
            continue
        seen.add(index)
        if index == event.block and not any(order < event.order for order in killed.get(index, ())):
            return True
        if index not in killed:
            stack.extend(blocks[index].succ)
    return False
