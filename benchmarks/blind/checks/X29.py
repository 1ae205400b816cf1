"""Check for blind case X29 (flag TEN102 line 6): runs the case program and asserts its labelled behaviour.

Usage: python X29.py cpu|cuda  -> prints "OK X29 <device>" or "SKIP X29 <device>".
"""
from _harness import load, run


import warnings

import torch


def check(device):
    ns = load("X29")
    labels = torch.tensor([0, 1, 1], device=device)
    weights = torch.tensor([0.25, 1.5], device=device)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        copied = labels.new_tensor(weights)
        ns["class_weighted_loss"](torch.randn(3, 2, device=device), labels, weights)
    assert any("copy construct from a tensor" in str(w.message) for w in caught)
    assert copied.tolist() == [0, 1]


if __name__ == "__main__":
    run("X29", check, cuda_only=False)
