"""Sizes and strides of a tensor whose sizes the file spells (``torch.rand(2, 3, 4, 4)``).

Whether ``reshape()``, ``flatten()`` and ``contiguous()`` hand back the tensor's own memory or a
copy depends on its layout: ``x.permute(0, 2, 3, 1).reshape(-1, 3)`` of a batch of two 3-channel
images copies, of one image it views. Where every size is known, a value carries its layout as a
fact (``layout:2,3,4,4/48,16,4,1``) and these functions decide as torch does (its
``computeStride`` and ``is_contiguous``, checked against torch in ``tests/test_layout``). Where a
size is not known the fact is absent and the model keeps its answer for any layout: the memory may
be shared.

In a summary the caller's sizes are not known yet: a parameter as passed carries the empty program
(``relayout:()``), each step it goes through is appended (``("permute", (0, 2, 3, 1))``, a size
of parameter ``i`` as ``("size", i, d)``, or ``("size", i, d, steps)`` where it was read after
steps), and each call site replays the program on the layout it passes (``replay``).
"""

import ast
from typing import Optional, Sequence, Tuple

LAYOUT = "layout:"  # a fact: the sizes and strides of a tensor, all known
SIZE = "size="  # a fact of an int: the size of a tensor it was bound to (``h`` of ``b, c, h, w = x.shape``)
SIZE_ARITHMETIC = {ast.Mult: "*", ast.Add: "+", ast.Sub: "-", ast.FloorDiv: "//"}
RELAYOUT = "relayout:"  # a fact of a summary: the steps a parameter went through, replayed at a call
AS_PASSED = RELAYOUT + "()"

Layout = Tuple[Tuple[int, ...], Tuple[int, ...]]


def contiguous_strides(sizes: Sequence[int]) -> Tuple[int, ...]:
    strides, step = [], 1
    for size in reversed(sizes):
        strides.append(step)
        step *= max(size, 1)
    return tuple(reversed(strides))


def contiguous(sizes: Sequence[int]) -> Layout:
    return tuple(sizes), contiguous_strides(sizes)


def is_contiguous(layout: Layout) -> bool:
    """torch's test: each dim of more than one element steps over all the later ones."""
    sizes, strides = layout
    if 0 in sizes:
        return True
    expected = 1
    for size, stride in zip(reversed(sizes), reversed(strides)):
        if size != 1:
            if stride != expected:
                return False
            expected *= size
    return True


def _numel(sizes: Sequence[int]) -> int:
    total = 1
    for size in sizes:
        total *= size
    return total


def target_sizes(layout: Layout, sizes: Sequence[int]) -> Optional[Tuple[int, ...]]:
    """The sizes a ``reshape``/``view`` asks for, with its ``-1`` inferred; None where they do not fit."""
    numel = _numel(layout[0])
    if sizes.count(-1) > 1 or any(size < -1 for size in sizes):
        return None
    known = _numel([size for size in sizes if size != -1])
    if -1 in sizes:
        if known == 0 or numel % known:
            return None
        sizes = [numel // known if size == -1 else size for size in sizes]
    return tuple(sizes) if _numel(sizes) == numel else None


def view_strides(layout: Layout, sizes: Sequence[int]) -> Optional[Tuple[int, ...]]:
    """The strides a view of ``layout`` with these sizes has, or None where no view can have
    them (``reshape`` copies, ``view`` raises): torch's ``computeStride``, which merges runs of
    dims whose strides chain."""
    old_sizes, old_strides = layout
    if _numel(old_sizes) == 0 or not old_sizes:
        return contiguous_strides(sizes)
    strides = [0] * len(sizes)
    view_d = len(sizes) - 1
    chunk_stride = old_strides[-1]
    tensor_numel = view_numel = 1
    for tensor_d in range(len(old_sizes) - 1, -1, -1):
        tensor_numel *= old_sizes[tensor_d]
        if tensor_d == 0 or (old_sizes[tensor_d - 1] != 1
                             and old_strides[tensor_d - 1] != tensor_numel * chunk_stride):
            while view_d >= 0 and (view_numel < tensor_numel or sizes[view_d] == 1):
                strides[view_d] = view_numel * chunk_stride
                view_numel *= sizes[view_d]
                view_d -= 1
            if view_numel != tensor_numel:
                return None
            if tensor_d > 0:
                chunk_stride = old_strides[tensor_d - 1]
                tensor_numel = view_numel = 1
    return tuple(strides) if view_d == -1 else None


def _dim(dim: int, rank: int) -> Optional[int]:
    dim = dim + rank if dim < 0 else dim
    return dim if 0 <= dim < max(rank, 1) else None


def step(layout: Layout, operation: tuple) -> Tuple[Optional[Layout], bool]:
    """One step on a known layout: the layout after it (None: not known) and whether it copied."""
    name, arguments = operation[0], operation[1:]
    sizes, strides = layout
    rank = len(sizes)
    if name == "permute":
        dims = [_dim(dim, rank) for dim in arguments[0]]
        if None in dims or sorted(dims) != list(range(rank)):
            return None, False
        return (tuple(sizes[d] for d in dims), tuple(strides[d] for d in dims)), False
    if name == "T":
        return (tuple(reversed(sizes)), tuple(reversed(strides))), False
    if name in ("transpose", "t"):
        if name == "t" and rank < 2:
            return layout, False  # ``t()`` of a 0-d or 1-d tensor is the tensor's own layout
        first, second = (0, 1) if name == "t" else (_dim(arguments[0], rank), _dim(arguments[1], rank))
        if first is None or second is None:
            return None, False
        order = list(range(rank))
        order[first], order[second] = order[second], order[first]
        return (tuple(sizes[d] for d in order), tuple(strides[d] for d in order)), False
    if name == "unsqueeze":
        dim = _dim(arguments[0], rank + 1)
        if dim is None:
            return None, False
        stride = strides[dim] * sizes[dim] if dim < rank else 1
        return (sizes[:dim] + (1,) + sizes[dim:], strides[:dim] + (stride,) + strides[dim:]), False
    if name == "contiguous":
        return (contiguous(sizes), True) if not is_contiguous(layout) else (layout, False)
    if name in ("reshape", "view"):
        wanted = target_sizes(layout, arguments[0])
        if wanted is None:
            return None, False
        found = view_strides(layout, wanted)
        if found is None:
            return (contiguous(wanted), True) if name == "reshape" else (None, False)
        return (wanted, found), False
    if name == "flatten":
        start, end = _dim(arguments[0], rank), _dim(arguments[1], rank)
        if start is None or end is None or start > end:
            return None, False
        if rank == 0 or start == end:
            return ((1,), (1,)) if rank == 0 else layout, False
        merged = sizes[:start] + (_numel(sizes[start:end + 1]),) + sizes[end + 1:]
        return step(layout, ("reshape", merged))
    return None, False


def elementwise(layout: Layout) -> Optional[Layout]:
    """The layout of an elementwise result of one tensor (``x + 1``): torch keeps a dense input's
    order of strides (a permuted tensor's result is permuted the same way), else lays it out anew."""
    sizes, strides = layout
    order = sorted(range(len(sizes)), key=lambda d: (strides[d], -sizes[d]), reverse=True)
    packed = contiguous_strides([sizes[d] for d in order])
    if all(sizes[d] == 1 or strides[d] == packed[i] for i, d in enumerate(order)):
        return layout
    return contiguous(sizes) if 0 not in sizes else None


def arange_length(start: float, end: float, step: float) -> Optional[int]:
    """How many values ``torch.arange(start, end, step)`` makes."""
    if step == 0:
        return None
    count = -(-(end - start) // step)  # the ceiling
    return max(int(count), 0)


def encode(layout: Layout) -> str:
    return LAYOUT + ",".join(map(str, layout[0])) + "/" + ",".join(map(str, layout[1]))


def decode(facts: frozenset) -> Optional[Layout]:
    """The layout a value's facts hold, if they hold exactly one."""
    found = [fact[len(LAYOUT):] for fact in facts if fact.startswith(LAYOUT)]
    if len(found) != 1:
        return None
    sizes, strides = found[0].split("/")
    return tuple(int(size) for size in sizes.split(",") if size), tuple(int(stride) for stride in strides.split(",") if stride)


def program(facts: frozenset) -> Optional[tuple]:
    """The steps a summary's value went through from a parameter as passed, if it holds one."""
    found = [fact[len(RELAYOUT):] for fact in facts if fact.startswith(RELAYOUT)]
    return ast.literal_eval(found[0]) if len(found) == 1 else None


def without_layout(facts: frozenset) -> frozenset:
    return frozenset(fact for fact in facts if not fact.startswith((LAYOUT, RELAYOUT)))


def named_size(facts: frozenset):
    """The size an int holds (``SIZE``): an int, a parameter's ``("size", i, d)`` or arithmetic of those."""
    found = [fact[len(SIZE):] for fact in facts if fact.startswith(SIZE)]
    return ast.literal_eval(found[0]) if len(found) == 1 else None


def size_arithmetic(operator, left, right):
    """``h * w`` of two sizes: the number where both are known, an expression each call site
    resolves where one is a parameter's size, None where one is not known."""
    if left is None or right is None:
        return None
    symbol = SIZE_ARITHMETIC[operator]
    if type(left) is int and type(right) is int:
        return _computed(symbol, left, right)
    return (symbol, left, right)


def _computed(symbol: str, left: int, right: int) -> Optional[int]:
    if symbol == "//":
        return left // right if right else None
    return left * right if symbol == "*" else left + right if symbol == "+" else left - right


def symbolic(operation: tuple) -> set:
    """The parameters whose sizes ``operation`` names (``("size", i, d)``)."""
    found = set()
    for argument in operation[1:]:
        if type(argument) is tuple and argument[:1] == ("size",):
            found.add(argument[1])
        elif type(argument) is tuple:
            found |= symbolic((None,) + argument)
    return found


def sizes_resolved(operation: tuple, sizes: Sequence[int]) -> Optional[tuple]:
    """``operation`` with the parameter's sizes (``("size", i, d)``) put in, None where one is out of range."""
    def resolve(argument):
        if type(argument) is tuple and argument[:1] == ("size",):
            after = sizes_after(sizes, argument[3]) if len(argument) > 3 else sizes
            dim = None if after is None else _dim(argument[2], len(after))
            return None if dim is None else after[dim]
        if type(argument) is tuple and argument[:1] and argument[0] in _SYMBOLS:  # ``("*", h, w)``
            left, right = resolve(argument[1]), resolve(argument[2])
            return None if left is None or right is None else _computed(argument[0], left, right)
        if type(argument) is tuple:
            parts = tuple(resolve(part) for part in argument)
            return None if None in parts else parts
        return argument
    resolved = tuple(resolve(argument) for argument in operation[1:])
    return None if None in resolved else (operation[0],) + resolved


_SYMBOLS = frozenset(SIZE_ARITHMETIC.values())


def sizes_after(sizes: Sequence[int], steps: tuple) -> Optional[Tuple[int, ...]]:
    """The sizes a parameter of these sizes has after a summary's steps (``("size", 0, 1,
    (("transpose", 1, 3),))``: a size read after the transpose), None where not known."""
    after: Optional[Layout] = contiguous(sizes)
    for operation in steps:
        operation = sizes_resolved(operation, sizes)
        after = None if operation is None else step(after, operation)[0]
        if after is None:
            return None
    return after[0]


def replay(layout: Layout, steps: tuple) -> Tuple[Optional[Layout], bool]:
    """A summary's steps on the layout a call site passes: the layout at the end (None: not
    known) and whether some step copied (then nothing of the result is the caller's memory)."""
    original = layout[0]
    for operation in steps:
        operation = sizes_resolved(operation, original)
        if operation is None:
            return None, False
        layout, copied = step(layout, operation)
        if copied:
            return layout, True
        if layout is None:
            return None, False
    return layout, False
