"""Check for blind case X47 (flag TEN305 line 13): runs the case program and asserts its labelled behaviour.

Usage: python X47.py cpu|cuda  -> prints "OK X47 <device>" or "SKIP X47 <device>".
"""
from _harness import load, run


import torch


def check(device):
    ns = load("X47")
    try:
        ns["postprocess"](torch.nn.Conv2d(1, 2, 3).to(device), torch.randn(1, 1, 5, 5, device=device))
    except RuntimeError as error:
        assert "graph leaves" in str(error)
    else:
        raise AssertionError("deepcopy succeeded")


if __name__ == "__main__":
    run("X47", check, cuda_only=False)
