"""Check for blind case X38 (flag TEN301 line 16): runs the case program and asserts its labelled behaviour.

Usage: python X38.py cpu|cuda  -> prints "OK X38 <device>" or "SKIP X38 <device>".
"""
from _harness import load, run


import torch


def check(device):
    ns = load("X38")
    model = ns["RidgeRegression"](3, l2=10.0).to(device)
    x, y = torch.randn(8, 3, device=device), torch.randn(8, device=device)
    model.loss(x, y).backward()
    with_reg = model.weight.grad.clone()
    model.weight.grad = None
    ((model(x) - y) ** 2).mean().backward()
    assert torch.allclose(with_reg, model.weight.grad), "the penalty contributed a gradient"


if __name__ == "__main__":
    run("X38", check, cuda_only=False)
