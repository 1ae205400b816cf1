"""Check for blind case X46 (flag TEN305 line 23): runs the case program and asserts its labelled behaviour.

Usage: python X46.py cpu|cuda  -> prints "OK X46 <device>" or "SKIP X46 <device>".
"""
from _harness import load, run


import torch


def check(device):
    ns = load("X46")
    try:
        ns["snapshot_after_warmup"](ns["Net"]().to(device), torch.randn(1, 1, 8, 8, device=device))
    except RuntimeError as error:
        assert "graph leaves" in str(error)
    else:
        raise AssertionError("deepcopy succeeded")


if __name__ == "__main__":
    run("X46", check, cuda_only=False)
