"""Check for blind case X13 (clean): runs the case program and asserts its labelled behaviour.

Usage: python X13.py cpu|cuda  -> prints "OK X13 <device>" or "SKIP X13 <device>".
"""
from _harness import load, run


import torch


def check(device):
    ns = load("X13")
    layer = torch.nn.Linear(10, 10)
    before = layer.weight.detach().clone()
    ns["sparsity_after_pruning"](layer, threshold=0.2)
    assert torch.equal(before, layer.weight.detach())


if __name__ == "__main__":
    run("X13", check, cuda_only=False)
