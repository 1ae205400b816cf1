"""Helpers for premises whose hazard is a race (asynchronous copies, TEN4xx).

The flagged code reads (or writes) a buffer before an asynchronous copy has landed; whether a
given run shows it depends on timing. Measured on an H100 (``benchmarks/results/premises.md``): with the
stream kept busy by large matmuls before the copy and at least 1M elements, the read lost the
race 20 of 20 times; an idle stream or a small copy may win it, and so did a read behind four
matmuls while eight test processes shared the GPU (0 of 5 tries, once in six runs), so the stream
is kept busy with sixteen (then four runs of the premise tests under eight processes all passed,
2026-11-27). A racing scenario therefore
declares ``TRIES`` (the harness counts the hazard when any try shows it, and the fixed form must
show it in none) and ``ELEMENTS`` (at least ``MIN_ELEMENTS``), and calls ``keep_busy`` before
its copy.
"""

MIN_ELEMENTS = 1 << 20
MIN_TRIES = 2


def keep_busy(device, rounds: int = 16, size: int = 4096):
    """Queue ``rounds`` ``size``x``size`` matmuls on the device's current stream and return the
    last product without synchronizing: a copy issued next on that stream starts only after them.
    (The matrix stays ``1/size`` everywhere, so no round overflows.)"""
    import torch

    product = torch.full((size, size), 1.0 / size, device=device)
    for _ in range(rounds):
        product = product @ product
    return product
