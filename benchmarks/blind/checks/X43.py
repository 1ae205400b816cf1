"""Check for blind case X43 (clean): runs the case program and asserts its labelled behaviour.

Usage: python X43.py cpu|cuda  -> prints "OK X43 <device>" or "SKIP X43 <device>".
"""
from _harness import load, run


import torch


def check(device):
    ns = load("X43")
    weights, _ = ns["train_logistic"](torch.randn(6, 4), torch.randint(0, 10, (6,)))
    assert weights.is_leaf and weights.grad is not None


if __name__ == "__main__":
    run("X43", check, cuda_only=False)
