"""The layout facts (``model/layout``) against torch: random chains of permutes, transposes,
unsqueezes, reshapes, flattens and ``contiguous()`` on tensors of random sizes, each step's
sizes, strides, contiguity and whether it copied compared with what torch does."""

import random

import pytest

from flake8_tensorcopy.engine import lint_source
from flake8_tensorcopy.model import layout

torch = pytest.importorskip("torch")


def _random_step(tensor, rng):
    """A random step on ``tensor``: its ``layout.step`` operation and torch's result."""
    rank = tensor.dim()
    kind = rng.choice(("permute", "transpose", "t", "unsqueeze", "reshape", "contiguous", "flatten"))
    if kind == "permute":
        order = list(range(rank))
        rng.shuffle(order)
        return ("permute", tuple(order)), tensor.permute(*order)
    if kind == "transpose":
        first, second = rng.randrange(rank), rng.randrange(rank)
        return ("transpose", first, second), tensor.transpose(first, second)
    if kind == "t" and rank <= 2:
        return (("T",), tensor.T) if rank == 2 and rng.random() < 0.5 else (("t",), tensor.t())
    if kind == "unsqueeze":
        dim = rng.randint(-rank - 1, rank)
        return ("unsqueeze", dim), tensor.unsqueeze(dim)
    if kind == "contiguous":
        return ("contiguous",), tensor.contiguous()
    if kind == "flatten":
        start = rng.randrange(rank)
        end = rng.randrange(start, rank)
        return ("flatten", start, end), tensor.flatten(start, end)
    numel = tensor.numel()
    divisor = rng.choice([d for d in range(1, numel + 1) if numel % d == 0])
    sizes = rng.choice(((divisor, -1), (-1,), (numel // divisor, divisor), (-1, divisor, 1)))
    return ("reshape", sizes), tensor.reshape(sizes)


def _shares(a, b) -> bool:
    return a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()


def test_steps_agree_with_torch():
    rng = random.Random(2026)
    outcomes = set()
    for _ in range(500):
        sizes = tuple(rng.choice((1, 1, 2, 3, 4)) for _ in range(rng.randint(1, 4)))
        tensor, known = torch.empty(sizes), layout.contiguous(sizes)
        for _ in range(rng.randint(1, 3)):
            operation, result = _random_step(tensor, rng)
            after, copied = layout.step(known, operation)
            assert after is not None, (known, operation)
            assert copied == (not _shares(result, tensor)), (known, operation)
            assert after[0] == tuple(result.shape), (known, operation)
            if not copied:  # the stride of a dim of one element is never read
                assert all(size == 1 or mine == theirs
                           for size, mine, theirs in zip(after[0], after[1], result.stride())), (known, operation)
            assert layout.is_contiguous(after) == result.is_contiguous(), (known, operation)
            outcomes.add((operation[0], copied))
            tensor, known = result, after
    # the chains reach both answers of each step that can copy
    assert {("reshape", True), ("reshape", False), ("contiguous", True), ("contiguous", False),
            ("flatten", True), ("flatten", False)} <= outcomes


def test_a_summary_replays_its_steps_on_each_call():
    """``images.permute(0, 2, 3, 1).reshape(-1, images.size(1))`` in a helper: a copy for a
    batch of four images, a view of a single one."""
    steps = (("permute", (0, 2, 3, 1)), ("reshape", (-1, ("size", 0, 1))))
    for batch, copies in ((4, True), (1, False)):
        tensor = torch.empty(batch, 3, 8, 8)
        result = tensor.permute(0, 2, 3, 1).reshape(-1, tensor.size(1))
        assert _shares(result, tensor) is not copies
        assert layout.replay(layout.contiguous(tuple(tensor.shape)), steps)[1] is copies


def test_sizes_read_after_steps_are_the_sizes_those_steps_made():
    """``x = x.transpose(1, 3); b, w, h, c = x.shape; x.reshape(b, w * h, c)`` in a helper: the
    sizes are those of the transposed tensor (a copy), not the parameter's (which would fit a view)."""
    moved = (("transpose", 1, 3),)
    size = [("size", 0, dim, moved) for dim in range(4)]
    steps = moved + (("reshape", (size[0], ("*", size[1], size[2]), size[3])),)
    outcomes = set()
    for sizes in ((2, 3, 4, 5), (1, 1, 4, 5), (2, 3, 1, 5)):
        tensor = torch.empty(sizes)
        moved_tensor = tensor.transpose(1, 3)
        b, w, h, c = moved_tensor.shape
        result = moved_tensor.reshape(b, w * h, c)
        assert layout.sizes_after(sizes, moved) == tuple(moved_tensor.shape)
        replayed, copied = layout.replay(layout.contiguous(sizes), steps)
        assert replayed[0] == tuple(result.shape)
        assert copied is not _shares(result, tensor), sizes
        outcomes.add(copied)
    assert outcomes == {True, False}  # a height of one merges in place: the view is reached too


def test_layout_is_forgotten_where_a_method_changes_it_in_place():
    """``x.t_()``/``x.resize_(n)`` change the sizes the file spelled: the answer is the one for
    any layout (here torch's too: after ``t_()`` the tensor is contiguous again and reshape views)."""
    source = ("import torch\n\n\ndef f():\n    x = torch.zeros(3, 4).t()\n    x.t_()\n"
              "    y = x.reshape(-1)\n    x.add_(1)\n    return y\n")
    assert [(f.line, f.code) for f in lint_source(source)] == [(7, "TEN204")]
    assert [(f.line, f.code) for f in lint_source(source.replace("x.t_()", "x.resize_(12)"))] == [(7, "TEN204")]
    assert lint_source(source.replace("    x.t_()\n", "")) == []  # a 3x4 transposed: reshape copies
    x = torch.zeros(3, 4).t()
    x.t_()
    assert _shares(x.reshape(-1), x)


def test_factories_of_sizes_make_contiguous_tensors_of_those_sizes():
    from flake8_tensorcopy import knowledge as k
    for qual, first_only in k.FACTORIES_OF_SIZES.items():
        factory = getattr(torch, qual.split(".")[-1])
        made = factory((2, 3), 0.5) if first_only else factory(2, 3)
        assert tuple(made.shape) == (2, 3) and tuple(made.stride()) == layout.contiguous_strides((2, 3)), qual
        if not first_only:
            assert tuple(factory((2, 3)).shape) == (2, 3), qual


def test_elementwise_results_and_ranges_agree_with_torch():
    """``x + 1`` keeps a dense tensor's order of strides (else it is laid out anew); ``torch.arange``
    of literal bounds has the length torch gives it."""
    rng = random.Random(7)
    seen = set()
    for _ in range(200):
        sizes = tuple(rng.choice((1, 2, 3, 4)) for _ in range(rng.randint(1, 4)))
        tensor, known = torch.empty(sizes), layout.contiguous(sizes)
        for _ in range(rng.randint(0, 2)):
            operation, tensor_after = _random_step(tensor, rng)
            known, _ = layout.step(known, operation)
            tensor = tensor_after
        if tensor.dim() >= 2 and rng.random() < 0.5:  # a slice with a step: not dense
            tensor, known = tensor[:, ::2], None
        result = tensor + 1
        expected = layout.elementwise(known) if known is not None else None
        if expected is not None:
            assert expected[0] == tuple(result.shape)
            assert all(size == 1 or mine == theirs for size, mine, theirs in zip(expected[0], expected[1], result.stride()))
            seen.add(layout.is_contiguous(known))
    assert seen == {True, False}
    for start, end, step in ((0, 6.0, 1), (1, 10, 2), (0, 1, 0.25), (5, 1, -1), (0, 0, 1), (0.5, 3, 0.7)):
        assert layout.arange_length(start, end, step) == torch.arange(start, end, step).numel()
