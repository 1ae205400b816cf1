"""Check for blind case X20 (clean): runs the case program and asserts its labelled behaviour.

Usage: python X20.py cpu|cuda  -> prints "OK X20 <device>" or "SKIP X20 <device>".
"""
from _harness import load, run


import torch


def check(device):
    ns = load("X20")
    scores = torch.rand(6, 3, device=device)
    before = scores.clone()
    ns["drop_selected"](scores, torch.tensor([0, 2], device=device))
    assert torch.equal(scores, before)


if __name__ == "__main__":
    run("X20", check, cuda_only=False)
