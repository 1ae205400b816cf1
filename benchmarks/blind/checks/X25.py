"""Check for blind case X25 (clean): runs the case program and asserts its labelled behaviour.

Usage: python X25.py cpu|cuda  -> prints "OK X25 <device>" or "SKIP X25 <device>".
"""
from _harness import load, run


import torch


def check(device):
    ns = load("X25")
    x = torch.randn(20, 2)
    y = x @ torch.tensor([2.0, -1.0])
    w, iterations = ns["fit_line"](x, y)
    assert iterations > 5 and torch.allclose(w, torch.tensor([2.0, -1.0]), atol=1e-3)


if __name__ == "__main__":
    run("X25", check, cuda_only=False)
