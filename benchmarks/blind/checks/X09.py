"""Check for blind case X09 (flag TEN307 line 17): runs the case program and asserts its labelled behaviour.

Usage: python X09.py cpu|cuda  -> prints "OK X09 <device>" or "SKIP X09 <device>".
"""
from _harness import load, run


import torch


def check(device):
    ns = load("X09")
    head = ns["FPNHead"]([4, 8], 6).to(device)
    outs = head([torch.randn(1, 4, 8, 8, device=device), torch.randn(1, 8, 4, 4, device=device)])
    try:
        sum(o.sum() for o in outs).backward()
    except RuntimeError as error:
        assert "modified by an inplace operation" in str(error)
    else:
        raise AssertionError("backward succeeded")


if __name__ == "__main__":
    run("X09", check, cuda_only=False)
