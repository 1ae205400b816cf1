"""Check for blind case X07 (flag TEN307 line 7): runs the case program and asserts its labelled behaviour.

Usage: python X07.py cpu|cuda  -> prints "OK X07 <device>" or "SKIP X07 <device>".
"""
from _harness import load, run


import torch


def check(device):
    ns = load("X07")
    gate = ns["Gate"](4).to(device)
    scores = gate(torch.randn(5, 4, device=device), torch.tensor([1, 3], device=device))
    try:
        scores.sum().backward()
    except RuntimeError as error:
        assert "modified by an inplace operation" in str(error)
    else:
        raise AssertionError("backward succeeded")


if __name__ == "__main__":
    run("X07", check, cuda_only=False)
