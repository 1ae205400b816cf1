"""Check for blind case X36 (flag TEN210 line 5): runs the case program and asserts its labelled behaviour.

Usage: python X36.py cpu|cuda  -> prints "OK X36 <device>" or "SKIP X36 <device>".
"""
from _harness import load, run


import torch


def check(device):
    ns = load("X36")
    a = torch.arange(16.0).view(4, 4)
    expected = a.clone()
    expected[:3, :3] = a[:3, :3].t().clone()
    got = ns["transpose_block"](a.clone(), 3)  # the claim is about the CPU result
    assert not torch.equal(got, expected), "the CPU result is the intended transpose"


if __name__ == "__main__":
    run("X36", check, cuda_only=False)
