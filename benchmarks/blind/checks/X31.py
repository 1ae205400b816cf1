"""Check for blind case X31 (flag TEN104 line 11): runs the case program and asserts its labelled behaviour.

Usage: python X31.py cpu|cuda  -> prints "OK X31 <device>" or "SKIP X31 <device>".
"""
from _harness import load, run


import torch


def check(device):
    ns = load("X31")
    model = torch.nn.Linear(3, 2).to(device)
    x = torch.randn(4, 3, device=device)
    X = ns["embed"](model, x)
    assert X.clone().grad_fn is not None and X.clone().grad_fn.name() == "CloneBackward0"
    assert torch.equal(ns["baseline_points"](model, x), X.detach().clone())


if __name__ == "__main__":
    run("X31", check, cuda_only=False)
