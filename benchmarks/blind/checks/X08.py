"""Check for blind case X08 (flag TEN307 line 15): runs the case program and asserts its labelled behaviour.

Usage: python X08.py cpu|cuda  -> prints "OK X08 <device>" or "SKIP X08 <device>".
"""
from _harness import load, run


import torch


def check(device):
    ns = load("X08")
    module = ns["PolishAttention"](3).to(device)
    out = module(torch.randn(2, 3, 6, 6, device=device))
    try:
        out.sum().backward()
    except RuntimeError as error:
        assert "modified by an inplace operation" in str(error)
    else:
        raise AssertionError("backward succeeded")


if __name__ == "__main__":
    run("X08", check, cuda_only=False)
