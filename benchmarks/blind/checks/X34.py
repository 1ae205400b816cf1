"""Check for blind case X34 (flag TEN209 line 17): runs the case program and asserts its labelled behaviour.

Usage: python X34.py cpu|cuda  -> prints "OK X34 <device>" or "SKIP X34 <device>".
"""
from _harness import load, run


import torch


def check(device):
    ns = load("X34")
    module = ns["GroupWhitening"](4).to(device)
    try:
        module(torch.randn(6, 4, device=device))
    except RuntimeError as error:
        assert "single memory location" in str(error)
    else:
        raise AssertionError("the in-place update succeeded")


if __name__ == "__main__":
    run("X34", check, cuda_only=False)
