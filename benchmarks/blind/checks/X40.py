"""Check for blind case X40 (flag TEN302 line 10): runs the case program and asserts its labelled behaviour.

Usage: python X40.py cpu|cuda  -> prints "OK X40 <device>" or "SKIP X40 <device>".
"""
from _harness import load, run


import torch


def check(device):
    ns = load("X40")
    model = torch.nn.Conv2d(3, 2, 3, padding=1).to(device)
    try:
        ns["visualise"](model, torch.randn(1, 3, 5, 5, device=device))
    except (RuntimeError, TypeError) as error:
        assert "numpy" in str(error)
    else:
        raise AssertionError("numpy() succeeded")


if __name__ == "__main__":
    run("X40", check, cuda_only=False)
