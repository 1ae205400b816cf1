"""Check for blind case X35 (flag TEN209 line 11): runs the case program and asserts its labelled behaviour.

Usage: python X35.py cpu|cuda  -> prints "OK X35 <device>" or "SKIP X35 <device>".
"""
from _harness import load, run


import torch


def check(device):
    ns = load("X35")
    try:
        ns["batch_jacobian"](lambda v: v ** 2, torch.randn(5, 2, device=device))
    except RuntimeError as error:
        assert "single memory location" in str(error)
    else:
        raise AssertionError("the row assignment succeeded")


if __name__ == "__main__":
    run("X35", check, cuda_only=False)
