"""Check for blind case X24 (flag TEN206 line 7): runs the case program and asserts its labelled behaviour.

Usage: python X24.py cpu|cuda  -> prints "OK X24 <device>" or "SKIP X24 <device>".
"""
from _harness import load, run


import torch


def check(device):
    ns = load("X24")
    x = torch.randn(20, 2)
    y = x @ torch.tensor([2.0, -1.0])
    w, iterations = ns["fit_line"](x, y)
    assert iterations == 0, f"ran {iterations} iterations"


if __name__ == "__main__":
    run("X24", check, cuda_only=False)
