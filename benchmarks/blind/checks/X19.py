"""Check for blind case X19 (flag TEN204 line 5): runs the case program and asserts its labelled behaviour.

Usage: python X19.py cpu|cuda  -> prints "OK X19 <device>" or "SKIP X19 <device>".
"""
from _harness import load, run


import torch


def check(device):
    ns = load("X19")
    x, _ = ns["main"]()
    assert not torch.equal(x, torch.arange(8).reshape(2, 4)), "the caller's tensor was not changed"


if __name__ == "__main__":
    run("X19", check, cuda_only=False)
