"""Function summaries, made by the same solver over symbolic parameters.

Parameter ``i`` enters a summary solve as a symbol: kind and grad unknown but inherited
(``kind_from``/``grad_from`` = {i}), storage ``("param", i)``. What the solve finds at the exit
is the summary: the returned value as a function of the parameters (inside tuples, lists and
dicts too: ``Value.items``), the parameters whose storage is written in place, what is stored on
the receiver (``self.<attr>``), copies still in flight, storages saved for backward, and whether
it runs backward or steps an optimizer. ``instantiate`` replaces the symbols by what a call site
passes; the model computes summaries on demand, callees first, so their order is the call
graph's, and a recursive call meets an unknown result.
"""

from typing import Dict, NamedTuple, Optional, Sequence

from flake8_tensorcopy.model.values import EMPTY, UNKNOWN, Evidence, Value, join


class Summary(NamedTuple):
    returns: Optional[Value]  # None: never returns a value (or only None)
    writes: frozenset  # parameter indices whose storage it writes in place
    stores: Dict[str, Value]  # attribute path under the receiver -> value stored there
    in_flight: frozenset  # asynchronous copies started and not synced at the exit
    saved: frozenset  # storages autograd keeps for backward (symbols included)
    backward: bool
    steps: bool


def is_parameter(storage) -> bool:
    return type(storage) is tuple and storage and storage[0] == "param"


class Instantiation:
    """The symbols of one summary replaced by one call site's arguments (``None``: not passed)."""

    def __init__(self, actuals: Sequence[Optional[Value]], call_value):
        self.actuals = actuals
        self.call_value = call_value  # calls an actual argument (for ``called``)

    def actual(self, index: int) -> Value:
        value = self.actuals[index] if index < len(self.actuals) else None
        return UNKNOWN if value is None else value

    def storages(self, storages: frozenset) -> frozenset:
        if not any(is_parameter(storage) for storage in storages):
            return storages
        result = set()
        for storage in storages:
            if is_parameter(storage):
                result |= self.actual(storage[1]).storages
            else:
                result.add(storage)
        return frozenset(result)

    def value(self, value: Value) -> Value:
        if value is None:
            return None
        kinds, grad, graph, device, why = value.kinds, value.grad, value.graph, value.device, value.why
        if value.kind_from:
            kinds = kinds - {"?"} if "?" in kinds else kinds
            inherited = [self.actual(index) for index in value.kind_from]
            for actual in inherited:
                kinds = kinds | actual.kinds
            if not device:
                device = frozenset().union(*(actual.device for actual in inherited))
        for index in value.grad_from:
            actual = self.actual(index)
            grad = grad or actual.grad
            graph = graph or actual.grad
        result = value._replace(
            kinds=kinds or UNKNOWN.kinds, grad=grad, graph=graph, device=device,
            storages=self.storages(value.storages), kind_from=EMPTY, grad_from=EMPTY, called=EMPTY,
            why=why if why else ((("kind", Evidence.SUMMARY),) if "tensor" in kinds else ()),
            items=None if value.items is None else tuple((key, self.value(item)) for key, item in value.items),
        )
        for index in value.called:
            made = self.call_value(self.actual(index))
            result = made if result.kinds == UNKNOWN.kinds and not result.storages else join(result, made)
        return result
