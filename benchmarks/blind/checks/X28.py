"""Check for blind case X28 (flag TEN101 line 5): runs the case program and asserts its labelled behaviour.

Usage: python X28.py cpu|cuda  -> prints "OK X28 <device>" or "SKIP X28 <device>".
"""
from _harness import load, run


import warnings

import torch


def check(device):
    ns = load("X28")
    pred = torch.rand(4, 4, device=device, requires_grad=True)
    mask = (torch.rand(4, 4, device=device) > 0.5).float()
    mask[0, 0], mask[0, 1] = 1.0, 0.0
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        loss = ns["weighted_mse"](torch.rand(4, 4, device=device), pred, mask)
    assert any("copy construct from a tensor" in str(w.message) for w in caught)
    assert loss.grad_fn is None and not loss.requires_grad


if __name__ == "__main__":
    run("X28", check, cuda_only=False)
