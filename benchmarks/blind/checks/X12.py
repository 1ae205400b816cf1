"""Check for blind case X12 (flag TEN201 line 11; allow TEN201 line 7): runs the case program and asserts its labelled behaviour.

Usage: python X12.py cpu|cuda  -> prints "OK X12 <device>" or "SKIP X12 <device>".
"""
from _harness import load, run


import torch


def check(device):
    ns = load("X12")
    layer = torch.nn.Linear(10, 10)
    before = layer.weight.detach().clone()
    ns["pruning_preview"](layer, threshold=0.2)
    assert not torch.equal(before, layer.weight.detach()), "the preview left the model alone"


if __name__ == "__main__":
    run("X12", check, cuda_only=False)
