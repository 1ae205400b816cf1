"""Check for blind case X16 (flag TEN203 line 8): runs the case program and asserts its labelled behaviour.

Usage: python X16.py cpu|cuda  -> prints "OK X16 <device>" or "SKIP X16 <device>".
"""
from _harness import load, run


import torch


def check(device):
    ns = load("X16")
    model = torch.nn.Linear(3, 1).to(device)
    steps = ns["train_until_converged"](model, torch.randn(8, 3, device=device), torch.randn(8, 1, device=device))
    assert steps == 0, f"stopped after {steps} steps"


if __name__ == "__main__":
    run("X16", check, cuda_only=False)
